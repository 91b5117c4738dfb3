// SPDX-License-Identifier: GPL-3.0-or-later
// Interactive tuning through the real widgets: a parameter pinned from the canvas's Tune menu
// becomes a slider in its display unit; dragging it re-runs at every position (the superseded runs
// are dropped, the run from before the drag stays as the one faded trace), the new trace shows the
// physics (a ten times stiffer stop shortens the contact by sqrt(10)), releasing commits one undo
// step, a keyboard step runs and commits at once, an out-of-range value runs nothing, and the row
// follows undo, renames and deletion.
#include "blocks/registry.hpp"
#include "gui/main_window.hpp"
#include "gui/plot_panel.hpp"
#include "gui/run_controller.hpp"
#include "gui/subplot.hpp"
#include "gui/tuning_panel.hpp"
#include "gui/tuning_row.hpp"
#include "gui_test_support.hpp"
#include "support/compare.hpp"
#include "support/test_support.hpp"

#include <QAction>
#include <QCheckBox>
#include <QLineEdit>
#include <QElapsedTimer>
#include <QMenu>
#include <QSlider>
#include <QTest>
#include <QThreadPool>
#include <QUndoStack>

#include <cmath>

using namespace endstop;

namespace {

// 1 kg at 1 m/s hits an undamped stop 10 mm away: contact lasts pi sqrt(m / k)
const char* kImpact = R"({
  "simulation": {"stop_time": 0.1},
  "blocks": [
    {"name": "mass", "type": "translational.mass", "parameters": {"mass": 1, "initial_velocity": 1}},
    {"name": "stop", "type": "translational.hard_stop",
     "parameters": {"model": "full_undamped", "upper_bound": 0.01, "lower_bound": -1, "upper_stiffness": 1e4,
                    "upper_damping": 0}},
    {"name": "ground", "type": "translational.reference"}],
  "connections": [["mass.M", "stop.R"], ["stop.C", "ground.R"]],
  "plots": [{"title": "Stop", "signals": ["stop.f"]}]
})";

// from the stop's bound events: entering and leaving the contact
double contactTime(const gui::RunSeries& run) {
    std::vector<double> t;
    for (const core::EventRecord& e : run.events())
        if (e.block == "stop" && e.kind == core::EventKind::Bound) t.push_back(e.time);
    return t.size() >= 2 ? t[1] - t[0] : -1.0;
}

}   // namespace

class TestTuning : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_settings;
    std::unique_ptr<gui::MainWindow> m_window;
    gui::Document& doc() const { return m_window->document(); }
    gui::RunController& runs() const { return *m_window->runs(); }
    bool idle() const {
        return QTest::qWaitFor([this] { return !runs().active(); }, 30000);
    }
    double stiffness() const { return std::get<double>(doc().model().find("stop")->params.at("upper_stiffness")); }

    gui::TuningRow* pinFromCanvasMenu(const char* block, const char* key) {
        QMenu menu;
        m_window->addBlockMenus(&menu, block);
        auto* tune = menu.findChild<QMenu*>("tuneMenu");
        if (!tune) return nullptr;
        for (QAction* a : tune->actions())
            if (a->data().toString() == key) a->trigger();
        return m_window->tuning()->row(block, key);
    }

private Q_SLOTS:
    void initTestCase() { test::isolateSettings(m_settings); }
    void init() {
        m_window = test::shownWindow(QSize(1280, 800));
        QVERIFY(m_window);
        doc().reset(test::modelFromJson(kImpact), QString());
    }
    void cleanup() {
        doc().markClean();
        m_window.reset();
        QThreadPool::globalInstance()->waitForDone();
    }

    void sliderDragRerunsAndReleaseCommits() {
        m_window->action("run")->trigger();
        QVERIFY(idle());
        const gui::RunSeries* baseline = runs().current();
        const int baselineId = baseline->id();
        const double soft = contactTime(*baseline);
        QCOMPARE_NEAR(soft, M_PI * std::sqrt(1.0 / 1e4), 1e-4);

        gui::TuningRow* row = pinFromCanvasMenu("stop", "upper_stiffness");
        QVERIFY(row);
        QCOMPARE(m_window->tuning()->rowCount(), 1);
        QCOMPARE(row->value(), 1e4);
        QVERIFY(row->logScale());   // a decade either way of 1e4 N/m
        QCOMPARE(row->rangeMin(), 1e3);
        QCOMPARE(row->rangeMax(), 1e5);
        const int undoBefore = doc().undoStack()->count();

        // a drag: every position re-runs, the model changes only on release
        QSlider* slider = row->slider();
        QElapsedTimer moved;
        slider->setSliderDown(true);
        for (int p : {600, 800, gui::TuningRow::kSteps}) {
            slider->setValue(p);
            moved.start();
            QCOMPARE(stiffness(), 1e4);
        }
        QCOMPARE(row->value(), 1e5);
        QVERIFY(idle());
        const qint64 latency = moved.elapsed();
        slider->setSliderDown(false);   // release
        QCOMPARE(stiffness(), 1e5);
        QCOMPARE(doc().undoStack()->count(), undoBefore + 1);
        QCOMPARE(doc().undoStack()->undoText(), QString("Tune stop.upper_stiffness"));
        qInfo("slider move -> run finished and plotted: %lld ms", latency);

        // the physics: ten times stiffer, contact sqrt(10) times shorter
        const gui::RunSeries* tuned = runs().current();
        QVERIFY(tuned->id() != baselineId);
        QVERIFY2(tuned->label.contains("upper_stiffness = 1e+05"), qPrintable(tuned->label));
        const double stiff = contactTime(*tuned);
        QCOMPARE_NEAR(soft / stiff, std::sqrt(10.0), 0.01, QString("%1 / %2").arg(soft).arg(stiff));

        // the run from before the drag stays as the one faded trace; the superseded ones are gone
        QCOMPARE(runs().previous().size(), std::size_t{1});
        QCOMPARE(runs().previous().front()->id(), baselineId);
        gui::Subplot* sub = m_window->plots()->subplot(0);
        const QCPGraph* now = sub->graph("stop.f", tuned->id());
        const QCPGraph* before = sub->graph("stop.f", baselineId);
        QVERIFY(now && before);
        QVERIFY(now->dataCount() > 0 && before->dataCount() > 0);
        QVERIFY(before->pen().color().alpha() < now->pen().color().alpha());
        bool found = false;
        QVERIFY(now->getValueRange(found).upper > before->getValueRange(found).upper * 3);   // peak force ~ sqrt(k)

        // undo takes the value back and the row shows it
        doc().undoStack()->undo();
        QCOMPARE(stiffness(), 1e4);
        QCOMPARE(row->value(), 1e4);
        QCOMPARE(slider->value(), gui::TuningRow::kSteps / 2);
    }

    void keyboardStepRunsAndCommitsAtOnce() {
        gui::TuningRow* row = pinFromCanvasMenu("stop", "upper_bound");
        QVERIFY(row);
        QVERIFY(row->logScale());   // 0.01 m: 1 mm to 100 mm
        QCOMPARE(row->unit().symbol, std::string("m"));
        const int undoBefore = doc().undoStack()->count();
        QTest::keyClick(row->slider(), Qt::Key_PageUp);
        QVERIFY(runs().active());
        QVERIFY(idle());
        QCOMPARE(doc().undoStack()->count(), undoBefore + 1);
        const double bound = std::get<double>(doc().model().find("stop")->params.at("upper_bound"));
        QCOMPARE(row->value(), bound);
        QVERIFY(bound > 0.01);
        // a farther stop is hit later: the first bound event moves by the extra gap at 1 m/s
        double first = -1;
        for (const core::EventRecord& e : runs().current()->events())
            if (e.kind == core::EventKind::Bound && first < 0) first = e.time;
        QCOMPARE_NEAR(first, bound, 1e-6);

        // typed into the spin box: the same
        row->spinBox()->setValue(0.02);
        Q_EMIT row->spinBox()->editingFinished();
        QVERIFY(idle());
        QCOMPARE(std::get<double>(doc().model().find("stop")->params.at("upper_bound")), 0.02);
        // focus leaving without a change neither runs nor commits
        const int runId = runs().current()->id();
        const int steps = doc().undoStack()->count();
        Q_EMIT row->spinBox()->editingFinished();
        QCOMPARE(runs().current()->id(), runId);
        QCOMPARE(doc().undoStack()->count(), steps);
    }

    void rangeScaleAndSpinBoxModeAreEditable() {
        gui::TuningRow* row = pinFromCanvasMenu("stop", "upper_stiffness");
        QVERIFY(row);
        row->minEdit()->setText("2000");
        Q_EMIT row->minEdit()->editingFinished();
        row->maxEdit()->setText("3000");
        Q_EMIT row->maxEdit()->editingFinished();
        row->logBox()->setChecked(false);
        QCOMPARE(row->rangeMin(), 2000.0);
        QCOMPARE(row->rangeMax(), 3000.0);
        QVERIFY(!row->logScale());
        QCOMPARE(row->value(), 1e4);   // the value outside the new range stays until the slider moves
        QCOMPARE(row->slider()->value(), gui::TuningRow::kSteps);
        row->slider()->setSliderDown(true);
        row->slider()->setValue(gui::TuningRow::kSteps / 4);
        row->slider()->setSliderDown(false);
        QCOMPARE(row->value(), 2250.0);   // linear
        QVERIFY(idle());
        QCOMPARE(stiffness(), 2250.0);
        row->logBox()->setChecked(true);
        row->slider()->setSliderDown(true);
        row->slider()->setValue(gui::TuningRow::kSteps / 2);
        row->slider()->setSliderDown(false);
        // the geometric middle, rounded to what one slider step can tell apart (2449.5, not 2449.48974278)
        QCOMPARE(row->value(), 2449.5);
        QCOMPARE_NEAR(row->value(), std::sqrt(2000.0 * 3000.0), 0.5);
        QVERIFY(idle());

        QVERIFY(row->slider()->isVisibleTo(row));
        row->spinOnlyAction()->trigger();
        QVERIFY(row->spinOnly());
        QVERIFY(!row->slider()->isVisibleTo(row));
        QVERIFY(row->spinBox()->isVisibleTo(row));
    }

    void outOfRangeValueRunsNothing() {
        gui::TuningRow* row = pinFromCanvasMenu("mass", "mass");
        QVERIFY(row);
        row->setRange(-1, 1, false);   // the user widened the range past the limit (mass > 0)
        m_window->action("run")->trigger();
        QVERIFY(idle());
        const int runId = runs().current()->id();
        QSlider* slider = row->slider();
        slider->setSliderDown(true);
        slider->setValue(0);   // -1 kg
        QCOMPARE(runs().current()->id(), runId);
        QVERIFY(!row->spinBox()->toolTip().isEmpty());
        slider->setSliderDown(false);
        QCOMPARE(std::get<double>(doc().model().find("mass")->params.at("mass")), 1.0);
    }

    void rowsFollowRenameAndDeletion() {
        QVERIFY(pinFromCanvasMenu("stop", "upper_stiffness"));
        QVERIFY(!pinFromCanvasMenu("stop", "model"));   // a choice is not offered
        QVERIFY(!m_window->tuning()->pin("stop", "model"));
        QVERIFY(!doc().apply(core::model::RenameBlock{"stop", "limit"}, "rename"));
        QVERIFY(m_window->tuning()->row("limit", "upper_stiffness"));
        QVERIFY(!doc().apply(core::model::RemoveBlock{"limit"}, "delete"));
        QTRY_COMPARE(m_window->tuning()->rowCount(), 0);
    }
};

QTEST_MAIN(TestTuning)
#include "tst_tuning.moc"
