// SPDX-License-Identifier: MIT
#pragma once
/// @file about.h
/// The texts of Help > About: what PosLab contains and under which licences (resources/licenses/, compiled in
/// under :/licenses/).

#include <QString>
#include <QStringList>

namespace poslab::ui {

/// What the app contains and each part's licence, as plain text (paragraphs separated by blank lines, no hard
/// line breaks inside a paragraph): PosLab's own code (MIT), Qt (LGPL-3; Qt Charts GPL-3), Eigen (MPL-2.0) and
/// the MathJax-typeset formula SVGs (Apache-2.0, and what is known of the TeX fonts' licence). The Qt version
/// is the one running, the Eigen version the one compiled in. The full licence texts follow, each under a
/// "==== SPDX-ID ====" line.
QString licencesText();

/// The SPDX ids of the licences whose full text is compiled in: Apache-2.0, GPL-3.0, LGPL-3.0, MPL-2.0.
QStringList licenceIds();
/// The full text of licence @p spdxId (one of licenceIds()); empty for any other id.
QString licenceFullText(const QString& spdxId);

} // namespace poslab::ui
