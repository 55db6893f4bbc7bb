// SPDX-License-Identifier: MIT
#include "ui/window/comparecontroller.h"

#include "ui/state/workbenchstate.h"
#include "ui/window/mainwindow.h"
#include "ui/window/panelscroll.h"
#include "ui/window/parameterpanel.h"
#include "ui/window/schemepicker.h"

#include <QAction>
#include <QActionGroup>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>

namespace poslab::ui {

CompareController::CompareController(MainWindow* window, WorkbenchState* state, QDockWidget* schemes,
                                     QDockWidget* parameters, QWidget* pickerA, QWidget* panelA)
    : QObject(window)
    , m_window(window)
    , m_state(state)
    , m_schemesDock(schemes)
    , m_parametersDock(parameters)
    , m_pickerA(pickerA)
    , m_panelScrollA(panelA)
{
    buildMenu();
}

void CompareController::buildMenu()
{
    // Compare: configuration B beside A in every view. "Compare with…" copies A to B; the panels then edit B.
    m_compareMenu = m_window->menuBar()->addMenu(tr("&Compare"));
    m_compareMenu->setObjectName(QStringLiteral("menuCompare"));
    m_compareMenu->setToolTipsVisible(true);
    QAction* copy
        = m_compareMenu->addAction(tr("Compare &with\u2026 (B = a copy of A; the panels edit B)"), this, [this] {
              if (m_state->compareWithCopy(m_state->comparing() ? m_state->compareMode() : CompareMode::SideBySide)
                      .isEmpty())
                  setEditsB(true);
          });
    copy->setObjectName(QStringLiteral("actionCompareWith"));
    copy->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
    m_compareMenu->addSeparator();
    m_compareModes = new QActionGroup(m_window);
    m_compareModes->setExclusive(true);
    const std::pair<CompareMode, QString> modes[] = {
        {CompareMode::Off, tr("Off (A only)")},
        {CompareMode::SideBySide, tr("Side by side (A | B)")},
        {CompareMode::Overlay, tr("Overlay (curves of A and B on shared axes)")},
        {CompareMode::Difference, tr("Difference (A \u2212 B)")},
    };
    for (const auto& [mode, text] : modes) {
        QAction* a = m_compareMenu->addAction(text);
        a->setObjectName(QStringLiteral("actionCompare_") + compareModeWord(mode));
        a->setCheckable(true);
        a->setData(int(mode));
        m_compareModes->addAction(a);
        connect(a, &QAction::triggered, this, [this, mode] { m_state->setCompareMode(mode); });
    }
    m_compareMenu->addSeparator();
    // Side by side, A and B share colour ranges and axes by default (one colour, one height, one value).
    QAction* independent = m_compareMenu->addAction(tr("&Independent ranges (A and B each fit their own data)"));
    independent->setObjectName(QStringLiteral("actionIndependentRanges"));
    independent->setCheckable(true);
    connect(independent, &QAction::triggered, this,
            [this](bool on) { m_state->setProperty(QStringLiteral("independent_ranges"), on); });
    const auto syncIndependent = [this, independent] {
        independent->setChecked(m_state->viewOptions().independentRanges);
        independent->setEnabled(m_state->comparing());
    };
    connect(m_state, &WorkbenchState::viewOptionsChanged, independent, syncIndependent);
    connect(m_state, &WorkbenchState::compareChanged, independent, syncIndependent);
    syncIndependent();
    m_compareMenu->addSeparator();
    m_editGroup = new QActionGroup(m_window);
    m_editGroup->setExclusive(true);
    QAction* editA = m_compareMenu->addAction(tr("Panels edit configuration &A"), this, [this] { setEditsB(false); });
    QAction* editB = m_compareMenu->addAction(tr("Panels edit configuration &B"), this, [this] { setEditsB(true); });
    editA->setObjectName(QStringLiteral("actionEditA"));
    editB->setObjectName(QStringLiteral("actionEditB"));
    for (QAction* a : {editA, editB}) {
        a->setCheckable(true);
        m_editGroup->addAction(a);
    }
    editA->setChecked(true);
    connect(m_state, &WorkbenchState::compareChanged, this, [this] {
        if (!m_state->comparing() && m_editsB)
            setEditsB(false);
        syncCompareControls();
    });
    syncCompareControls();
}

void CompareController::syncCompareControls()
{
    for (QAction* a : m_compareModes->actions())
        a->setChecked(a->data().toInt() == int(m_state->compareMode()));
    for (QAction* a : m_editGroup->actions()) {
        a->setEnabled(m_state->comparing());
        if (a->objectName() == QLatin1String("actionEditB"))
            a->setChecked(m_editsB);
        else
            a->setChecked(!m_editsB);
    }
}

void CompareController::setFrontView(const QString& name)
{
    m_frontView = name;
    if (m_pickerB)
        m_pickerB->setFrontView(name);
}

void CompareController::setEditsB(bool editB)
{
    editB = editB && m_state->comparing();
    if (editB && !m_panelB) {
        WorkbenchState* b = m_state->compareState();
        m_pickerB = new SchemePicker(b, m_window);
        m_pickerB->setFrontView(m_frontView);
        connect(m_pickerB, &SchemePicker::roomChanged, this, &CompareController::pickerRoomChanged);
        m_panelB = new ParameterPanel(b, m_window);
        auto* scroll = new PanelScroll(m_window);
        scroll->setWidget(m_panelB);
        scroll->setWidgetResizable(true);
        scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        m_panelScrollB = scroll;
        m_pickerB->hide();
        m_panelScrollB->hide();
        connect(b, &WorkbenchState::refused, this,
                [this](const QString& msg) { emit message(tr("B: %1").arg(msg), true); });
    }
    if (editB == m_editsB)
        return;
    m_editsB = editB;
    // The docks show the picker and panel of the configuration being edited; the other pair waits hidden.
    QWidget* picker = editB ? static_cast<QWidget*>(m_pickerB) : m_pickerA;
    QWidget* panel = editB ? m_panelScrollB : m_panelScrollA;
    (editB ? m_pickerA : static_cast<QWidget*>(m_pickerB))->hide();
    (editB ? m_panelScrollA : m_panelScrollB)->hide();
    m_schemesDock->setWidget(picker);
    m_parametersDock->setWidget(panel);
    picker->show();
    panel->show();
    m_schemesDock->setWindowTitle(editB ? tr("Schemes \u2014 editing B") : tr("Schemes"));
    m_parametersDock->setWindowTitle(editB ? tr("Parameters \u2014 editing B") : tr("Parameters"));
    syncCompareControls();
    emit message(editB ? tr("The panels edit configuration B; Compare > Panels edit configuration A goes back.")
                       : tr("The panels edit configuration A."),
                 false);
}

} // namespace poslab::ui
