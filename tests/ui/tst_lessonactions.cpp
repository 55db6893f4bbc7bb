// SPDX-License-Identifier: MIT
// Every "Do" line is doable: each step's actions (resources/lessons/FORMAT.md, "Actions") are performed
// in the real window, offscreen, through the widgets a learner uses: the parameter panel's fields, check boxes and
// choices, the views' own spin boxes and choices (keys typed, arrows pressed), the scheme picker's buttons, and
// QTest mouse moves over the heatmaps, the table, the decay chart and the extension plot. After each action the
// test checks the effect the Do line claims: the state holds the value set (or keeps its value where the control
// refuses it, with the control's message), the view's hover read-out names the cell, distance or pair pointed at,
// a view to read is drawn, and a notice to run holds. An action whose target is missing (no control for its knob,
// no such cell, a view not shown) fails with a line naming the step.

#include "ui/figures/computation.h"
#include "ui/teaching/lessonbrowser.h"
#include "ui/lessons/claims.h"
#include "ui/lessons/lesson.h"
#include "ui/window/mainwindow.h"
#include "ui/window/parameterpanel.h"
#include "ui/window/schemepicker.h"
#include "ui/views/attentionview.h"
#include "ui/views/curveitem.h"
#include "ui/views/decayview.h"
#include "ui/views/extensionview.h"
#include "ui/views/patchgridview.h"
#include "ui/views/sequenceview.h"
#include "ui/views/tableview.h"
#include "ui/views/view.h"
#include "ui/state/workbenchstate.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QChart>
#include <QCheckBox>
#include <QComboBox>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QJsonObject>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabBar>
#include <QWheelEvent>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace poslab;
using namespace poslab::ui;

namespace {

/// The view controls by the knob they change (the window's step lock uses the same names).
const QHash<QString, QString>& controlOf()
{
    static const QHash<QString, QString> m{
        {QStringLiteral("softmax"), QStringLiteral("attentionKind")},
        {QStringLiteral("causal"), QStringLiteral("attentionMask")},
        {QStringLiteral("head"), QStringLiteral("attentionHead")},
        {QStringLiteral("heads"), QStringLiteral("attentionHeads")},
        {QStringLiteral("content"), QStringLiteral("attentionContent")},
        {QStringLiteral("term"), QStringLiteral("attentionTerm")},
        {QStringLiteral("sentence"), QStringLiteral("attentionSentence")},
        {QStringLiteral("key_distance"), QStringLiteral("rotationDistance")},
        {QStringLiteral("shift"), QStringLiteral("rotationShift")},
        {QStringLiteral("clock_pairs"), QStringLiteral("clockPairs")},
        {QStringLiteral("table_quantity"), QStringLiteral("tableQuantity")},
        {QStringLiteral("extension_pair"), QStringLiteral("extensionPair")},
        {QStringLiteral("target_length"), QStringLiteral("extensionLength")},
        {QStringLiteral("cursor"), QStringLiteral("cursorSpin")},
    };
    return m;
}

QString text(const QJsonValue& v)
{
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', 17);
    return v.toString();
}

/// The knob's value in the state, as text ("10000", "true", "-4"); null when the state has no such knob.
QJsonValue knobValue(const WorkbenchState& s, const QString& knob)
{
    const QJsonObject j = s.toJson();
    if (knob == QLatin1String("scheme") || knob == QLatin1String("dim") || knob == QLatin1String("positions")
        || knob == QLatin1String("cursor"))
        return j.value(knob);
    if (const QJsonObject p = j.value("params").toObject(); p.contains(knob))
        return p.value(knob);
    if (const QJsonObject v = j.value("view").toObject(); v.contains(knob))
        return v.value(knob);
    return QJsonValue::Null;
}

bool holds(const WorkbenchState& s, const QString& knob, const QJsonValue& want)
{
    const QJsonValue have = knobValue(s, knob);
    if (have.isNull())
        return false;
    bool a = false, b = false;
    const double x = text(have).toDouble(&a), y = text(want).toDouble(&b);
    if (a && b)
        return x == y;
    return text(have).compare(text(want), Qt::CaseInsensitive) == 0;
}

void typeInto(QWidget* w, const QString& value)
{
    w->setFocus();
    QTest::keyClick(w, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClick(w, Qt::Key_Delete);
    QTest::keyClicks(w, value);
    QTest::keyClick(w, Qt::Key_Return);
}

} // namespace

class TestLessonActions : public QObject {
    Q_OBJECT

    QTemporaryDir m_settings;
    MainWindow* m_window = nullptr;

    /// Waits until the window's computation has published the newest state's table and attention scores, so that
    /// what the views show (and what a hover reads) belongs to the state the actions made. False after 60 s.
    bool settle()
    {
        Computation* c = m_window->computation();
        const bool idle = QTest::qWaitFor([c] { return !c->isBusy() && !c->attentionPending(); }, 60000);
        QTest::qWait(30);
        return idle;
    }

    /// A control for @p knob: the parameter panel's row, the scheme picker, or the view control of that name.
    QWidget* control(const QString& knob)
    {
        ParameterPanel* panel = m_window->parameterPanel();
        if (QLineEdit* e = panel->edit(knob); e && e->isVisibleTo(m_window))
            return e;
        if (QComboBox* c = panel->combo(knob); c && c->isVisibleTo(m_window))
            return c;
        if (QCheckBox* c = panel->check(knob); c && c->isVisibleTo(m_window))
            return c;
        if (knob == QLatin1String("scheme"))
            return m_window->schemePicker();
        const QString name = controlOf().value(knob);
        if (name.isEmpty())
            return nullptr;
        for (QWidget* w : m_window->findChildren<QWidget*>(name))
            if (w->isVisible())
                return w;
        return nullptr;
    }

    QString setKnob(const lessons::Action& a)
    {
        WorkbenchState* s = m_window->state();
        QWidget* w = control(a.target);
        if (!w)
            return QStringLiteral("no visible control for knob '%1'").arg(a.target);
        if (!w->isEnabled())
            return QStringLiteral("the control of '%1' is locked").arg(a.target);
        const QJsonValue before = knobValue(*s, a.target);
        const QString want = text(a.value);
        if (auto* picker = qobject_cast<SchemePicker*>(w)) {
            QAbstractButton* b = picker->button(want);
            if (!b)
                return QStringLiteral("the scheme picker has no button '%1'").arg(want);
            QTest::mouseClick(b, Qt::LeftButton);
        } else if (auto* spin = qobject_cast<QSpinBox*>(w)) {
            typeInto(spin, want);
        } else if (auto* edit = qobject_cast<QLineEdit*>(w)) {
            typeInto(edit, want);
        } else if (auto* check = qobject_cast<QCheckBox*>(w)) {
            if (check->isChecked() != (want == QLatin1String("true")))
                QTest::mouseClick(check, Qt::LeftButton, {}, QPoint(8, check->height() / 2));
        } else if (auto* combo = qobject_cast<QComboBox*>(w)) {
            // The arrow keys walk the choices as a learner does: to the item of that name, or (choices worded
            // for people, "probabilities" for softmax true) one by one until the state holds the value. A view
            // may rebuild its choices once its result arrives, so each press waits for that.
            combo->setFocus();
            const int named = combo->findText(want, Qt::MatchFixedString);
            for (int guard = 0; named >= 0 && combo->currentIndex() != named && guard < 64; ++guard) {
                QTest::keyClick(combo, named > combo->currentIndex() ? Qt::Key_Down : Qt::Key_Up);
                QTest::qWait(30);
            }
            if (!holds(*s, a.target, a.value)) {
                // Up to the first choice (Home is the window's "cursor to 0" key), then down one by one.
                for (int i = combo->currentIndex(); i > 0; --i)
                    QTest::keyClick(combo, Qt::Key_Up);
                QTest::qWait(30);
                for (int i = 0; i < combo->count() && !holds(*s, a.target, a.value); ++i) {
                    QTest::keyClick(combo, Qt::Key_Down);
                    QTest::qWait(30);
                }
            }
        } else {
            return QStringLiteral("the control of '%1' is a %2, which the test cannot drive")
                .arg(a.target, w->metaObject()->className());
        }
        QApplication::processEvents();
        if (a.refused) {
            if (knobValue(*s, a.target) != before)
                return QStringLiteral("'%1' took %2, which the Do line says is refused").arg(a.target, want);
            if (m_window->parameterPanel()->message(a.target).isEmpty())
                return QStringLiteral("'%1' refused %2 without a message").arg(a.target, want);
            return {};
        }
        if (!holds(*s, a.target, a.value))
            return QStringLiteral("'%1' is %2 after setting it to %3 with the %4 '%5'")
                .arg(a.target, text(knobValue(*s, a.target)), want, QString::fromLatin1(w->metaObject()->className()),
                     w->objectName());
        return {};
    }

    QString stepKnob(const lessons::Action& a)
    {
        WorkbenchState* s = m_window->state();
        QWidget* w = control(a.target);
        if (!w)
            return QStringLiteral("no visible control for knob '%1'").arg(a.target);
        if (!w->isEnabled())
            return QStringLiteral("the control of '%1' is locked").arg(a.target);
        const double before = text(knobValue(*s, a.target)).toDouble();
        for (int i = 0; i < std::abs(a.by); ++i) {
            if (auto* spin = qobject_cast<QSpinBox*>(w)) {
                spin->setFocus();
                QTest::keyClick(spin, a.by > 0 ? Qt::Key_Up : Qt::Key_Down);
            } else if (auto* edit = qobject_cast<QLineEdit*>(w)) {
                typeInto(edit,
                         QString::number(text(knobValue(*s, a.target)).toDouble() + (a.by > 0 ? 1 : -1), 'g', 17));
            } else {
                return QStringLiteral("the control of '%1' cannot be stepped").arg(a.target);
            }
        }
        QApplication::processEvents();
        const double after = text(knobValue(*s, a.target)).toDouble();
        // extension_pair at "auto" (-1) steps from the pair shown, so only the direction is certain there.
        if (before < 0 && a.target == QLatin1String("extension_pair"))
            return after >= 0 ? QString() : QStringLiteral("extension_pair stayed at auto");
        if (after != before + a.by)
            return QStringLiteral("'%1' went from %2 to %3, not by %4").arg(a.target).arg(before).arg(after).arg(a.by);
        return {};
    }

    QString hover(const lessons::Action& a)
    {
        if (!settle())
            return QStringLiteral("the figures were not computed within a minute");
        View* v = m_window->view(a.target);
        if (!v || !v->isVisible())
            return QStringLiteral("view '%1' is not on screen").arg(a.target);
        if (auto* att = qobject_cast<AttentionView*>(v)) {
            std::optional<QPointF> at;
            QTest::qWaitFor([&] { return (at = att->cellCentre(a.row, a.column, a.sideB)).has_value(); }, 10000);
            if (!at)
                return QStringLiteral("the heatmap%1 has no cell (%2, %3)")
                    .arg(a.sideB ? " of B" : "")
                    .arg(a.row)
                    .arg(a.column);
            QTest::qWait(20);
            at = att->cellCentre(a.row, a.column, a.sideB);
            QTest::mouseMove(att, at->toPoint());
            const auto cell = att->hoveredCell(a.sideB);
            if (cell != QPoint(a.column, a.row))
                return QStringLiteral(
                           "the mouse at the centre of cell (%1, %2) points at %3: the cell is smaller than a pixel")
                    .arg(a.row)
                    .arg(a.column)
                    .arg(cell ? QStringLiteral("(%1, %2)").arg(cell->y()).arg(cell->x()) : QStringLiteral("nothing"));
            const QString r = att->hoverReadout();
            // B's read-out names its configuration first ("B · query ..."), as View's compare hover draws it.
            const QString query
                = (a.sideB ? QStringLiteral("B \u00b7 ") : QString()) + QStringLiteral("query %1").arg(a.row);
            if (!r.startsWith(query) || !r.contains(QStringLiteral("key %1").arg(a.column)))
                return QStringLiteral("the read-out '%1' does not name query %2, key %3")
                    .arg(r)
                    .arg(a.row)
                    .arg(a.column);
            return {};
        }
        if (auto* table = qobject_cast<TableView*>(v)) {
            std::optional<QPointF> at;
            QTest::qWaitFor([&] { return table->currentResult() != nullptr; }, 10000);
            if (!(at
                  = table->cellCentre(a.row, a.column))) { // zoomed in elsewhere: a double click shows the whole table
                QTest::mouseDClick(table, Qt::LeftButton, {}, table->rect().center());
                QTest::qWaitFor([&] { return (at = table->cellCentre(a.row, a.column)).has_value(); }, 10000);
            }
            if (!at)
                return QStringLiteral("the table shows no cell (%1, %2)").arg(a.row).arg(a.column);
            // Rows thinner than two pixels: the learner zooms with the wheel (Shift: rows only) over the row.
            for (int turn = 0; turn < 40; ++turn) {
                const auto next = table->cellCentre(a.row + 1, a.column);
                if (next && next->y() - at->y() >= 2)
                    break;
                QWheelEvent wheel(*at, table->mapToGlobal(*at), QPoint(), QPoint(0, 120), Qt::NoButton,
                                  Qt::ShiftModifier, Qt::NoScrollPhase, false);
                QApplication::sendEvent(table, &wheel);
                QTest::qWait(10);
                if (const auto c = table->cellCentre(a.row, a.column))
                    at = c;
            }
            QTest::mouseMove(table, at->toPoint());
            if (table->hoveredCell() != QPoint(a.column, a.row))
                return QStringLiteral("the mouse at the centre of row %1, column %2 points elsewhere: the row is "
                                      "smaller than a pixel")
                    .arg(a.row)
                    .arg(a.column);
            if (!table->readout(a.row, a.column).startsWith(QStringLiteral("p = %1 ").arg(a.row)))
                return QStringLiteral("the read-out does not name row %1").arg(a.row);
            return {};
        }
        if (auto* ext = qobject_cast<ExtensionView*>(v)) {
            const int pair = int(*a.at);
            std::optional<QPointF> at;
            QTest::qWaitFor([&] { return (at = ext->pairCentre(pair)).has_value(); }, 10000);
            if (!at)
                return QStringLiteral("the extension plot shows no pair %1").arg(pair);
            QTest::mouseMove(ext, at->toPoint());
            if (ext->hoveredPair() != pair)
                return QStringLiteral("the mouse over pair %1's column hovers pair %2")
                    .arg(pair)
                    .arg(ext->hoveredPair());
            return {};
        }
        if (auto* decay = qobject_cast<DecayView*>(v)) {
            // The first curve's point nearest the distance, moved to through the chart's viewport.
            CurveItem* item = nullptr;
            QTest::qWaitFor(
                [&] {
                    for (QGraphicsItem* it : decay->chart()->scene()->items())
                        if (auto* c = dynamic_cast<CurveItem*>(it); c && !c->curves().empty())
                            item = c;
                    return item != nullptr;
                },
                10000);
            if (!item)
                return QStringLiteral("the decay view draws no curve");
            // The nearest drawn point of the first curve to the distance asked for.
            QTest::qWait(300); // the chart lays out its axes after the curves arrive
            const CurveItem::Curve& curve = item->curves()[0];
            QGraphicsView* gv = decay->chart()->scene()->views().value(0);
            const QLocale english(QLocale::English);
            QStringList seen;
            for (const double x : {*a.at}) {
                int best = -1;
                for (int j = 0; j < curve.points.size(); ++j)
                    if (best < 0 || std::abs(curve.points[j].x() - x) < std::abs(curve.points[best].x() - x))
                        best = j;
                if (best < 0)
                    continue;
                // The read-out names the distance under the mouse: the drawn sample nearest the one asked for (a
                // long curve is sampled, and a pixel spans several tokens), or the one before it at the plot's edge.
                const QPolygonF plot = item->toPlot(curve);
                for (const int j : {best, std::max(0, best - 1)}) {
                    QTest::mouseMove(gv->viewport(), gv->mapFromScene(item->mapToScene(plot[j])));
                    const QString k = QStringLiteral("k = ")
                        + english.toString(qint64(std::llround(curve.points[j].x()))) + QLatin1Char(' ');
                    if (QTest::qWaitFor([&] { return decay->readoutText().contains(k); }, 1000))
                        return {};
                }
                seen << decay->readoutText();
            }
            return QStringLiteral("the read-out does not name distance %1 (read: %2)")
                .arg(*a.at)
                .arg(seen.join(QStringLiteral(" | ")));
        }
        return QStringLiteral("view '%1' has no hover the test knows").arg(a.target);
    }

    /// Brings view @p id on screen as a learner does: its button in the grid's strip, or its tab.
    QString show(const QString& id)
    {
        View* v = m_window->view(id);
        if (!v)
            return QStringLiteral("no view '%1'").arg(id);
        if (v->isVisible())
            return {};
        auto* tabs = m_window->findChild<QTabBar*>(QStringLiteral("viewTabs"));
        for (int i = 0; tabs && i < tabs->count(); ++i)
            if (tabs->tabData(i).toString() == id) {
                QTest::mouseClick(tabs, Qt::LeftButton, {}, tabs->tabRect(i).center());
                break;
            }
        if (!v->isVisible()) {
            // A grid view: its key, Ctrl+N (the window's "Bring VIEW forward" actions).
            for (int i = 1; i <= 9; ++i)
                if (auto* act = m_window->findChild<QAction*>(QStringLiteral("shortcutView%1").arg(i));
                    act && act->text().contains(v->title())) {
                    QTest::keyClick(m_window, Qt::Key(Qt::Key_1 + i - 1), Qt::ControlModifier);
                    QTest::qWait(50);
                    break;
                }
        }
        if (!v->isVisible()) {
            if (tabs && tabs->isVisible())
                QTest::mouseClick(tabs, Qt::LeftButton, {}, tabs->tabRect(0).center()); // the workbench's grid
            if (auto* b = m_window->findChild<QAbstractButton*>(QStringLiteral("strip_") + v->exportName());
                b && b->isVisible())
                QTest::mouseClick(b, Qt::LeftButton);
        }
        QTest::qWait(100);
        return v->isVisible() ? QString() : QStringLiteral("view '%1' could not be brought on screen").arg(id);
    }

    /// Selects the patch (a.row, a.column) of the patch grid view as a learner does: a click on its cell, or the
    /// arrow keys from the patch selected; the effect is the spatial set-up's selected patch.
    QString selectPatch(const lessons::Action& a)
    {
        auto* v = qobject_cast<PatchGridView*>(m_window->view(a.target));
        if (!v || !v->isVisible())
            return QStringLiteral("view '%1' is not on screen").arg(a.target);
        const core::Grid grid = v->data().grid;
        if (a.row >= grid.rows || a.column >= grid.cols)
            return QStringLiteral("the grid is %1 x %2: it has no patch (%3, %4)")
                .arg(grid.rows)
                .arg(grid.cols)
                .arg(a.row)
                .arg(a.column);
        const int want = a.row * grid.cols + a.column;
        if (a.byKeys) {
            v->setFocus();
            for (int guard = 0; guard < 4 * (grid.rows + grid.cols) && m_window->state()->spatial().patch != want;
                 ++guard) {
                const int at = m_window->state()->spatial().patch, i = at / grid.cols, j = at % grid.cols;
                QTest::keyClick(v,
                                a.row > i          ? Qt::Key_Down
                                    : a.row < i    ? Qt::Key_Up
                                    : a.column > j ? Qt::Key_Right
                                                   : Qt::Key_Left);
            }
        } else {
            const PatchGridView::Layout l = v->layoutFor(QRectF(v->rect()));
            const QPointF centre(l.grid.left() + (a.column + 0.5) * l.cell, l.grid.top() + (a.row + 0.5) * l.cell);
            if (v->patchAt(QRectF(v->rect()), centre) != want)
                return QStringLiteral("the centre of patch (%1, %2) is not that patch's cell").arg(a.row).arg(a.column);
            QTest::mouseClick(v, Qt::LeftButton, {}, centre.toPoint());
        }
        const int got = m_window->state()->spatial().patch;
        return got == want ? QString()
                           : QStringLiteral("%1 left patch %2 selected, not %3").arg(a.describe()).arg(got).arg(want);
    }

    /// Selects token a.token of the mixed sequence view as a learner does: a click on its column of the token strip,
    /// or the Left and Right keys from the token selected; the effect is the spatial set-up's selected token.
    QString selectToken(const lessons::Action& a)
    {
        auto* v = qobject_cast<SequenceView*>(m_window->view(a.target));
        if (!v || !v->isVisible())
            return QStringLiteral("view '%1' is not on screen").arg(a.target);
        const int tokens = int(v->data().ids.cols());
        if (!v->data().error.isEmpty())
            return QStringLiteral("the sequence view draws nothing: %1").arg(v->data().error);
        if (a.token >= tokens)
            return QStringLiteral("the sequence has %1 tokens: it has no token %2").arg(tokens).arg(a.token);
        if (a.byKeys) {
            v->setFocus();
            for (int guard = 0; guard < 2 * tokens && m_window->state()->spatial().patch != a.token; ++guard)
                QTest::keyClick(v, a.token > m_window->state()->spatial().patch ? Qt::Key_Right : Qt::Key_Left);
        } else {
            const SequenceView::Layout l = v->layoutFor(QRectF(v->rect()));
            const QPointF centre(l.tokens.left() + (a.token + 0.5) * l.tokens.width() / tokens, l.tokens.center().y());
            if (v->tokenAt(QRectF(v->rect()), centre) != a.token)
                return QStringLiteral("the centre of token %1's column is not that token").arg(a.token);
            QTest::mouseClick(v, Qt::LeftButton, {}, centre.toPoint());
        }
        const int got = m_window->state()->spatial().patch;
        if (got != a.token)
            return QStringLiteral("%1 left token %2 selected, not %3").arg(a.describe()).arg(got).arg(a.token);
        // The header names the token selected with its three ids.
        const QString want = QStringLiteral("token %1: t %2, h %3, w %4")
                                 .arg(a.token)
                                 .arg(v->data().ids(0, a.token))
                                 .arg(v->data().ids(1, a.token))
                                 .arg(v->data().ids(2, a.token));
        return v->data().token == a.token ? QString() : QStringLiteral("the view does not show %1").arg(want);
    }

public:
    /// Performs @p a in the window; empty when its effect holds, else why not.
    QString perform(const lessons::Step& step, const lessons::Action& a)
    {
        switch (a.kind) {
        case lessons::Action::Kind::Set: return setKnob(a);
        case lessons::Action::Kind::Step: return stepKnob(a);
        case lessons::Action::Kind::Hover: return hover(a);
        case lessons::Action::Kind::Probe: {
            const lessons::Notice* n = step.findNotice(a.target);
            if (!n)
                return QStringLiteral("the step has no notice '%1'").arg(a.target);
            lessons::ClaimEngine engine;
            const lessons::CheckResult r = engine.check(n->check);
            return r.holds ? QString() : QStringLiteral("notice %1 does not hold: %2").arg(a.target, r.reason);
        }
        case lessons::Action::Kind::Show: return show(a.target);
        case lessons::Action::Kind::Select:
            return a.target == QLatin1String("sequence") ? selectToken(a) : selectPatch(a);
        case lessons::Action::Kind::Read: {
            View* v = m_window->view(a.target);
            if (!v || !v->isVisible())
                return QStringLiteral("view '%1' is not on screen").arg(a.target);
            if (!settle())
                return QStringLiteral("view '%1' was not computed within a minute").arg(a.target);
            View::DrawState d = View::DrawState::CannotCompute;
            QTest::qWaitFor([&] { return (d = v->drawState(v->size())) == View::DrawState::Drawn; }, 10000);
            return d == View::DrawState::Drawn
                ? QString()
                : QStringLiteral("view '%1' is %2").arg(a.target, View::drawStateName(d));
        }
        }
        return QStringLiteral("unknown action");
    }

    /// Opens step @p id as a learner does: Try it (after a guess where it asks one).
    QString open(const QString& id)
    {
        const lessons::Lesson* lesson = nullptr;
        int index = 0;
        if (!lessons::findStep(id, &lesson, &index))
            return QStringLiteral("no step %1").arg(id);
        m_window->showLessons();
        LessonBrowser* b = m_window->lessonBrowser();
        b->open(int(lesson - b->lessonList().constData()), index);
        if (b->needsGuess()) {
            const lessons::Step* s = b->step();
            const QString guess
                = s->predict->kind == QLatin1String("choice") ? QStringLiteral("0") : QStringLiteral("1");
            if (const QString why = b->commitGuess(guess); !why.isEmpty())
                return why;
        }
        QTest::mouseClick(b->tryButton(), Qt::LeftButton);
        QTest::qWait(150); // the docks and the grid settle (the heatmap's cells move with them)
        if (!settle())
            return QStringLiteral("the step's figures were not computed within a minute");
        return b->needsGuess() ? QStringLiteral("Try it did not load the step") : QString();
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_settings.path());
        QApplication::setOrganizationName(QStringLiteral("PosLabTest"));
        QApplication::setApplicationName(QStringLiteral("tst_lessonactions"));
        QVERIFY2(lessons::lessonLoadProblems().isEmpty(),
                 qPrintable(lessons::lessonLoadProblems().join(QLatin1Char('\n'))));
        m_window = new MainWindow(nullptr, false);
        m_window->resize(1366, 768);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window));
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window));
    }

    void cleanupTestCase() { delete m_window; }

    void everyStepHasActions()
    {
        // Every step whose text asks the learner to do something carries its actions.
        QStringList missing;
        int steps = 0;
        for (const lessons::Lesson& l : lessons::lessons())
            for (const lessons::Step& s : l.steps) {
                ++steps;
                if (!s.doText.isEmpty() && s.actions.isEmpty())
                    missing << s.id;
            }
        QVERIFY2(missing.isEmpty(),
                 qPrintable(QStringLiteral("steps without actions: ") + missing.join(QStringLiteral(", "))));
        QVERIFY(steps >= 70);
    }

    void everyActionIsDoable_data()
    {
        QTest::addColumn<QString>("id");
        for (const lessons::Lesson& l : lessons::lessons())
            for (const lessons::Step& s : l.steps)
                if (!s.actions.isEmpty())
                    QTest::newRow(qPrintable(s.id)) << s.id;
    }

    void everyActionIsDoable()
    {
        QFETCH(QString, id);
        QString why;
        try {
            why = open(id);
        } catch (const std::exception& e) {
            why = QStringLiteral("exception: ") + QString::fromUtf8(e.what());
        }
        QVERIFY2(why.isEmpty(), qPrintable(id + QStringLiteral(": ") + why));
        const lessons::Step* s = lessons::findStep(id);
        for (int i = 0; i < s->actions.size(); ++i) {
            QString problem;
            try {
                problem = perform(*s, s->actions[i]);
            } catch (const std::exception& e) {
                problem = QStringLiteral("exception: ") + QString::fromUtf8(e.what());
            }
            QVERIFY2(problem.isEmpty(),
                     qPrintable(QStringLiteral("step %1: actions[%2] (%3): %4")
                                    .arg(id)
                                    .arg(i)
                                    .arg(s->actions[i].describe(), problem)));
            // POSLAB_ACTION_SHOTS=DIR: the window after each action, DIR/STEP-K.png, to look at what a learner sees.
            if (const QString dir = qEnvironmentVariable("POSLAB_ACTION_SHOTS"); !dir.isEmpty())
                m_window->grab().save(QStringLiteral("%1/%2-%3.png").arg(dir, id).arg(i));
        }
    }

    void missingTargetFails()
    {
        // The same machinery reports an action whose target is not there: a knob with no control, a cell outside
        // the heatmap, a view the step does not show.
        QVERIFY(open(QStringLiteral("1.4")).isEmpty());
        const lessons::Step* s = lessons::findStep(QStringLiteral("1.4"));
        lessons::Action knob;
        knob.kind = lessons::Action::Kind::Set;
        knob.target = QStringLiteral("no_such_knob");
        knob.value = 1;
        QCOMPARE(perform(*s, knob), QStringLiteral("no visible control for knob 'no_such_knob'"));
        lessons::Action cell;
        cell.kind = lessons::Action::Kind::Hover;
        cell.target = QStringLiteral("attention");
        cell.row = 12;
        cell.column = 0;
        QCOMPARE(perform(*s, cell), QStringLiteral("the heatmap has no cell (12, 0)"));
        lessons::Action view;
        view.kind = lessons::Action::Kind::Read;
        view.target = QStringLiteral("extension");
        QVERIFY(perform(*s, view).startsWith(QStringLiteral("view 'extension' is")));
        // A locked knob: 1.4 unlocks attention_size only.
        lessons::Action locked;
        locked.kind = lessons::Action::Kind::Set;
        locked.target = QStringLiteral("dim");
        locked.value = 32;
        QCOMPARE(perform(*s, locked), QStringLiteral("the control of 'dim' is locked"));
    }
};

QTEST_MAIN(TestLessonActions)
#include "tst_lessonactions.moc"
