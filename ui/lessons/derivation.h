// SPDX-License-Identifier: MIT
#pragma once
/// @file derivation.h
/// Derivation pages: the reasons behind a lesson's figures, a few steps of algebra with one sentence each (the
/// sinusoidal shift as a rotation, the four terms of an absolute score, RoPE's relative property, the code the
/// figures stand for). One file per page, resources/derivations/<id>.json (resources/derivations/FORMAT.md),
/// compiled in under :/derivations/. A lesson step opens one with its "derivation" key (lesson.h Step), which the
/// lesson reader checks against derivations(). A page's numbers are notices like a step's (lesson.h Notice),
/// evaluated by the claim engine (claims.h), so `poslab lessons --check` checks them with the lessons that link
/// them. Qt Core only: the command line, the derivation window (ui/teaching/derivationpage.h) and the tests share it.
///
/// Reading is strict, as for lessons: one line naming the file, the step and the field
/// ("sinusoid-shift.json: step 3: \"formula\" must be a non-empty string").

#include "ui/lessons/claims.h"
#include "ui/lessons/lesson.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace poslab::lessons {

/// A few lines of code shown in a monospace block (written for the page, not copied from anywhere).
struct DerivationCode {
    QString label; ///< "PyTorch, rotate_half (Hugging Face's half-split pairs)"
    QString text;  ///< the code, lines separated by "\n"
};

/// One step: one sentence, and a formula or a code block (or both, or neither).
struct DerivationStep {
    QString text;    ///< may hold {v:nID.K} (a notice of the page) and nothing else live
    QString formula; ///< TeX, typeset by scripts/typeset-formulas.sh like a lesson's; may be empty
    std::optional<DerivationCode> code;
};

/// One derivation page.
struct Derivation {
    QString file; ///< "sinusoid-shift.json"
    QString id;   ///< "sinusoid-shift", the file name without .json
    QString title;
    QString summary; ///< one sentence: what the page shows
    QList<DerivationStep> steps;
    /// The page's checkable numbers, held as a step's notices are (claims.id is the page id), so that
    /// ClaimEngine::fillStepText fills {v:nID.K} in the steps' text.
    Step claims;
    QStringList sources;
};

/// Reads one page's bytes; throws core::InputError with one line "FILE: WHERE: problem". @p fileName names the
/// file in messages and gives the id (the name without ".json").
Derivation parseDerivation(const QByteArray& bytes, const QString& fileName);

/// Every shipped page (:/derivations/), sorted by id; read once. A file that fails is left out and its message
/// is in derivationLoadProblems() (the lesson store lists those among lessonLoadProblems() too).
const QList<Derivation>& derivations();
const QStringList& derivationLoadProblems();
/// The shipped page with this id, or nullptr.
const Derivation* findDerivation(const QString& id);
/// The ids of derivations(), in order.
QStringList derivationIds();

/// Evaluates every notice of @p d: one report per notice (file and step empty; what = "derivation ID notice nK").
QList<ClaimReport> checkDerivation(const Derivation& d, ClaimEngine& engine);

} // namespace poslab::lessons
