// SPDX-License-Identifier: MIT
#pragma once
/// @file derivationpage.h
/// The derivation window: one derivation page (ui/lessons/derivation.h) read top to bottom, its title and summary,
/// its numbered steps (a sentence each, with live values computed by the claim engine, a typeset formula from
/// resources/formulas and a monospace code block), the page's checked numbers with a tick or a cross, and its
/// sources. Opened from a lesson step's "Why" button in the lesson browser, or with D in presentation mode. A window
/// of its own that takes the main window's font (scale) and palette (theme); Esc or Ctrl+W closes it.

#include "ui/lessons/claims.h"
#include "ui/lessons/derivation.h"

#include <QList>
#include <QWidget>

#include <memory>

class QLabel;
class QScrollArea;
class QVBoxLayout;

namespace poslab::ui {

class DerivationPage : public QWidget {
    Q_OBJECT
public:
    explicit DerivationPage(QWidget* parent = nullptr);
    ~DerivationPage() override;

    /// Opens page @p id in the window of @p anchor's window (one derivation window per top-level window, created on
    /// first use, raised later), noting the step @p fromStep ("2.1") that opened it. Returns the window, or nullptr
    /// for an unknown id.
    static DerivationPage* open(const QString& id, QWidget* anchor, const QString& fromStep = {});

    /// Shows page @p id (an unknown id shows one line saying so); returns false for an unknown id.
    bool showDerivation(const QString& id, const QString& fromStep = {});
    QString derivationId() const { return m_id; }
    /// The page's text, every label's (tests read it).
    QString text() const;
    /// The formula labels (each holds a typeset image, or the TeX when none was typeset) and the code blocks.
    const QList<QLabel*>& formulaLabels() const { return m_formulas; }
    const QList<QLabel*>& codeLabels() const { return m_code; }
    QScrollArea* scrollArea() const { return m_scroll; }

protected:
    void changeEvent(QEvent* e) override;
    /// A new width fits the formulas to it again.
    void resizeEvent(QResizeEvent* e) override;

private:
    QLabel* addLabel(const QString& objectName, const QString& html);
    QString liveText(const QString& text);
    void rebuild();
    /// A step's code block: its label, then the code in monospace at the page's font size.
    void addCode(const lessons::DerivationCode& code);
    /// "Checked by the app": each claim of the page with its tick or cross and its compute lines.
    void addChecks(const lessons::Derivation& d);

    QString m_id;
    QString m_from;
    std::unique_ptr<lessons::ClaimEngine> m_engine;
    QScrollArea* m_scroll = nullptr;
    QWidget* m_body = nullptr;
    QVBoxLayout* m_layout = nullptr;
    QList<QLabel*> m_formulas;
    QList<QLabel*> m_code;
    bool m_rebuilding = false;
    int m_builtWidth = -1; ///< the viewport width the formulas were fitted to
};

} // namespace poslab::ui
