// SPDX-License-Identifier: GPL-3.0-or-later
// Named model parameters in the GUI, through the real widgets: the Parameters dock (add, type a
// value, resolved value and dimension, per-row errors, undo/redo, rename with its uses updated in
// one step), expressions in a block's dialog (stored as written, "= 20000 N/m" beside the field,
// the flattened value, OK refused on an unknown name, names completed while typing), and a model
// parameter pinned as a slider that re-runs and commits.
#include "blocks/registry.hpp"
#include "core/model/flatten.hpp"
#include "gui/expression_completer.hpp"
#include "gui/param_dialog.hpp"
#include "gui/param_form.hpp"
#include "gui/parameters_panel.hpp"
#include "gui/run_controller.hpp"
#include "gui/run_series.hpp"
#include "gui/tuning_panel.hpp"
#include "gui/tuning_row.hpp"
#include "gui_test_support.hpp"
#include "support/test_support.hpp"

#include <QAbstractItemView>
#include <QCompleter>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSlider>
#include <QTableWidget>
#include <QTest>
#include <QThreadPool>
#include <QToolButton>
#include <QUndoStack>

using namespace endstop;

namespace {

// 1 kg at 1 m/s against a spring of stiffness 2*k to ground; a subsystem using k inside
const char* kModel = R"({"format": "endstop-project", "formatVersion": 2,
  "simulation": {"stop_time": 0.2},
  "parameters": [{"name": "k", "value": "1e4 N/m"}, {"name": "k2", "value": "2*k"}],
  "subsystems": {"Cell": {
      "ports": [{"name": "A", "domain": "translational"}, {"name": "B", "domain": "translational"}],
      "parameters": [{"name": "c", "value": "k/10"}],
      "blocks": [{"name": "spring", "type": "translational.spring", "parameters": {"stiffness": "c + k"}}],
      "connections": [["A", "spring.R"], ["spring.C", "B"]]}},
  "blocks": [
    {"name": "mass", "type": "translational.mass", "parameters": {"mass": 1, "initial_velocity": 1}},
    {"name": "spring", "type": "translational.spring", "parameters": {"stiffness": 1000}},
    {"name": "cell", "type": "subsystem:Cell", "parameters": {"c": "k/100"}},
    {"name": "ground", "type": "translational.reference"}],
  "connections": [["mass.M", "spring.R"], ["spring.C", "ground.R"], ["mass.M", "cell.A"], ["cell.B", "ground.R"]]
})";

QTableWidget* tableOf(gui::ParametersPanel* p) { return p->table(); }

// edits a cell as a user does: double-click opens the editor, type, Enter
void typeInto(QTableWidget* table, int row, int column, const QString& text) {
    QTableWidgetItem* item = table->item(row, column);
    table->scrollToItem(item);
    table->editItem(item);
    auto* editor = qobject_cast<QLineEdit*>(table->indexWidget(table->indexFromItem(item)));
    QVERIFY(editor);
    editor->selectAll();
    QTest::keyClicks(editor, text);
    QTest::keyClick(editor, Qt::Key_Return);   // the delegate commits in a queued call
    QTRY_VERIFY(!table->indexWidget(table->indexFromItem(item)));
}

QString cell(gui::ParametersPanel* p, const QString& name, int column) {
    const int row = p->rowOf(name);
    return row < 0 ? QString() : p->table()->item(row, column)->text();
}

void retype(QLineEdit* e, const QString& text) {
    e->setFocus();
    e->selectAll();
    QTest::keyClick(e, Qt::Key_Backspace);
    QTest::keyClicks(e, text);
}

std::string value(const gui::Document& d, const std::string& name) { return d.model().findParameter(name)->value; }

double flatParam(const gui::Document& d, const char* block, const char* key) {
    const core::model::Model flat = core::model::flatten(d.model(), d.registry());
    return std::get<double>(flat.find(block)->params.at(key));
}

}   // namespace

class TestParametersPanel : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_settings;
    std::unique_ptr<gui::MainWindow> m_window;
    gui::Document& doc() const { return m_window->document(); }
    gui::ParametersPanel* panel() const { return m_window->findChild<gui::ParametersPanel*>(); }

private Q_SLOTS:
    void initTestCase() { test::isolateSettings(m_settings); }
    void init() {
        m_window = test::shownWindow(QSize(1400, 900));
        QVERIFY(m_window);
        doc().reset(test::modelFromJson(kModel), QString());
    }
    void cleanup() {
        doc().markClean();
        m_window.reset();
        QThreadPool::globalInstance()->waitForDone();
    }

    void panelShowsValuesDimensionsAndResolved() {
        gui::ParametersPanel* p = panel();
        QVERIFY(p);
        QCOMPARE(p->table()->rowCount(), 2);
        QCOMPARE(cell(p, "k", gui::ParametersPanel::ValueColumn), QString("1e4 N/m"));
        QCOMPARE(cell(p, "k", gui::ParametersPanel::DimensionColumn), QString("N/m"));
        QCOMPARE(cell(p, "k2", gui::ParametersPanel::ValueColumn), QString("2*k"));
        QCOMPARE(cell(p, "k2", gui::ParametersPanel::ResolvedColumn), QString("20000 N/m"));
    }

    void addTypeValueUndoRedo() {
        gui::ParametersPanel* p = panel();
        const int steps = doc().undoStack()->count();
        QTest::mouseClick(p->addButton(), Qt::LeftButton);
        QVERIFY(doc().model().findParameter("p1"));
        QCOMPARE(doc().undoStack()->count(), steps + 1);
        QApplication::processEvents();
        // the Add button opened the value for editing: close it, then type like a user
        const QModelIndex editing =
            p->table()->indexFromItem(p->table()->item(p->rowOf("p1"), gui::ParametersPanel::ValueColumn));
        auto* open = qobject_cast<QLineEdit*>(p->table()->indexWidget(editing));
        QVERIFY(open);
        QTest::keyClick(open, Qt::Key_Escape);
        typeInto(tableOf(p), p->rowOf("p1"), gui::ParametersPanel::ValueColumn, "gap + 5 mm");
        QCOMPARE(value(doc(), "p1"), std::string("gap + 5 mm"));
        QVERIFY2(cell(p, "p1", gui::ParametersPanel::ResolvedColumn).contains("unknown name 'gap'"),
                 qPrintable(cell(p, "p1", gui::ParametersPanel::ResolvedColumn)));
        QCOMPARE(p->table()->item(p->rowOf("p1"), gui::ParametersPanel::ResolvedColumn)->foreground().color(),
                 QColor(0xc6, 0x28, 0x28));
        QCOMPARE(cell(p, "k2", gui::ParametersPanel::ResolvedColumn), QString("20000 N/m"));   // the others unaffected
        typeInto(tableOf(p), p->rowOf("p1"), gui::ParametersPanel::ValueColumn, "k * 2 mm");
        QCOMPARE(cell(p, "p1", gui::ParametersPanel::ResolvedColumn), QString("20 N"));
        QCOMPARE(cell(p, "p1", gui::ParametersPanel::DimensionColumn), QString("N"));
        // a cycle names itself
        typeInto(tableOf(p), p->rowOf("k"), gui::ParametersPanel::ValueColumn, "k2/2");
        QVERIFY2(cell(p, "k", gui::ParametersPanel::ResolvedColumn).contains("cycle"), qPrintable(cell(p, "k", 3)));
        QVERIFY(!cell(p, "k2", gui::ParametersPanel::ResolvedColumn).isEmpty());
        QCOMPARE(doc().undoStack()->count(), steps + 4);

        doc().undoStack()->undo();   // k back
        QCOMPARE(cell(p, "k", gui::ParametersPanel::ValueColumn), QString("1e4 N/m"));
        QCOMPARE(cell(p, "k2", gui::ParametersPanel::ResolvedColumn), QString("20000 N/m"));
        doc().undoStack()->undo();
        doc().undoStack()->undo();
        QCOMPARE(cell(p, "p1", gui::ParametersPanel::ValueColumn), QString("1"));
        doc().undoStack()->undo();   // the Add
        QCOMPARE(p->rowOf("p1"), -1);
        doc().undoStack()->redo();
        doc().undoStack()->redo();
        QCOMPARE(cell(p, "p1", gui::ParametersPanel::ValueColumn), QString("gap + 5 mm"));

        // Remove: allowed while used; the row goes, the use's error shows in the others
        p->table()->selectRow(p->rowOf("k"));
        QTest::mouseClick(p->removeButton(), Qt::LeftButton);
        QCOMPARE(p->rowOf("k"), -1);
        QVERIFY(cell(p, "k2", gui::ParametersPanel::ResolvedColumn).contains("unknown name 'k'"));
        doc().undoStack()->undo();
        QCOMPARE(p->rowOf("k"), 0);   // back in its place
    }

    void renameUpdatesUsesInOneStep() {
        gui::ParametersPanel* p = panel();
        QVERIFY(!doc().apply(core::model::SetParameter{"spring", "stiffness", std::string("3*k")}, "expr"));
        const QByteArray before = test::bytes(doc());
        const int steps = doc().undoStack()->count();
        QString asked;
        test::MessageBoxAnswer yes(QMessageBox::Yes, &asked);
        typeInto(tableOf(p), p->rowOf("k"), gui::ParametersPanel::NameColumn, "k_base");
        QTRY_COMPARE(yes.answered(), 1);
        // k2, the spring, the instance's mask value, the body's spring (the mask default "k/10" is
        // shadowed by nothing: it is updated too)
        QVERIFY2(asked.contains("Update the 5 uses"), qPrintable(asked));
        QTRY_COMPARE(p->rowOf("k_base"), 0);
        QCOMPARE(p->rowOf("k"), -1);
        QCOMPARE(value(doc(), "k2"), std::string("2*k_base"));
        QCOMPARE(std::get<std::string>(doc().model().find("spring")->params.at("stiffness")), std::string("3*k_base"));
        QCOMPARE(std::get<std::string>(doc().model().find("cell")->params.at("c")), std::string("k_base/100"));
        const core::model::SubsystemDef* cellDef = doc().model().findSubsystem("Cell");
        QCOMPARE(std::get<std::string>(cellDef->body.find("spring")->params.at("stiffness")),
                 std::string("c + k_base"));
        QCOMPARE(cellDef->body.findParameter("c")->value, std::string("k_base/10"));
        QCOMPARE(flatParam(doc(), "spring", "stiffness"), 3e4);
        QCOMPARE(flatParam(doc(), "cell.spring", "stiffness"), 1e4 + 100);
        QCOMPARE(doc().undoStack()->count(), steps + 1);
        doc().undoStack()->undo();
        QCOMPARE(test::bytes(doc()), before);

        // No: only the name changes; its uses then report the unknown name
        test::MessageBoxAnswer no(QMessageBox::No, nullptr);
        typeInto(tableOf(p), p->rowOf("k"), gui::ParametersPanel::NameColumn, "kb");
        QTRY_COMPARE(no.answered(), 1);
        QTRY_VERIFY(doc().model().findParameter("kb"));
        QCOMPARE(value(doc(), "k2"), std::string("2*k"));
        QVERIFY(cell(p, "k2", gui::ParametersPanel::ResolvedColumn).contains("unknown name 'k'"));
        // a taken or invalid name is refused and the cell shows the model's name again
        typeInto(tableOf(p), p->rowOf("kb"), gui::ParametersPanel::NameColumn, "k2");
        QTest::qWait(20);
        QCOMPARE(cell(p, "kb", gui::ParametersPanel::NameColumn), QString("kb"));
        typeInto(tableOf(p), p->rowOf("kb"), gui::ParametersPanel::NameColumn, "2x");
        QTest::qWait(20);
        QCOMPARE(cell(p, "kb", gui::ParametersPanel::NameColumn), QString("kb"));
        QVERIFY(doc().model().findParameter("kb"));
    }

    void blockFieldTakesAnExpression() {
        gui::ParamDialog dialog(doc(), "spring");
        dialog.show();
        auto* field = qobject_cast<QLineEdit*>(dialog.form()->editor("stiffness"));
        QVERIFY(field);
        retype(field, "2*k");
        QLabel* resolved = dialog.form()->resolvedLabel("stiffness");
        QVERIFY(resolved && !resolved->isHidden());
        QCOMPARE(resolved->text(), QString("= 20000 N/m"));
        QTest::mouseClick(dialog.buttons()->button(QDialogButtonBox::Ok), Qt::LeftButton);
        QVERIFY(!dialog.isVisible());
        QCOMPARE(std::get<std::string>(doc().model().find("spring")->params.at("stiffness")), std::string("2*k"));
        QCOMPARE(flatParam(doc(), "spring", "stiffness"), 2e4);

        // shown as written when opened again, resolved; a plain quantity stays a number
        gui::ParamDialog again(doc(), "spring");
        again.show();
        auto* line = qobject_cast<QLineEdit*>(again.form()->editor("stiffness"));
        QCOMPARE(line->text(), QString("2*k"));
        QCOMPARE(again.form()->resolvedLabel("stiffness")->text(), QString("= 20000 N/m"));
        // the resolved value follows the model parameter while the dialog is open
        QVERIFY(!doc().apply(core::model::SetModelParameter{"k", std::string("2e4 N/m")}, "k"));
        QCOMPARE(again.form()->resolvedLabel("stiffness")->text(), QString("= 40000 N/m"));
        // an unknown name: the reason, and OK refused
        const QByteArray before = test::bytes(doc());
        retype(line, "2*kk");
        QTest::mouseClick(again.buttons()->button(QDialogButtonBox::Ok), Qt::LeftButton);
        QVERIFY(again.isVisible());
        QVERIFY2(again.form()->errorLabel("stiffness")->text().contains("unknown name 'kk'"),
                 qPrintable(again.form()->errorLabel("stiffness")->text()));
        QVERIFY(again.form()->resolvedLabel("stiffness")->isHidden());
        QCOMPARE(test::bytes(doc()), before);
        retype(line, "1e4 N/m/2");   // dimension checked against the field
        QVERIFY(again.apply());
        QCOMPARE(flatParam(doc(), "spring", "stiffness"), 5000.0);
        retype(line, "250 N/mm");
        QVERIFY(again.apply());
        QCOMPARE(std::get<double>(doc().model().find("spring")->params.at("stiffness")), 250000.0);
        retype(line, "2*k_wrong + 1 s");
        QVERIFY(!again.apply());
    }

    void namesAreCompletedWhileTyping() {
        QVERIFY(!doc().apply(core::model::SetModelParameter{"k_stop", std::string("1e6 N/m")}, "k_stop"));
        gui::ParamDialog dialog(doc(), "spring");
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        auto* field = qobject_cast<QLineEdit*>(dialog.form()->editor("stiffness"));
        retype(field, "3*k_");
        auto* completer = field->findChild<gui::ExpressionCompleter*>();
        QVERIFY(completer);
        QCOMPARE(completer->wordAtCursor(), QString("k_"));
        QTRY_VERIFY(completer->completer()->popup()->isVisible());
        QCOMPARE(completer->completer()->completionCount(), 1);   // k_stop; not k, k2
        QTest::keyClick(completer->completer()->popup(), Qt::Key_Return);
        QCOMPARE(field->text(), QString("3*k_stop"));
        QCOMPARE(dialog.form()->resolvedLabel("stiffness")->text(), QString("= 3e+06 N/m"));
        retype(field, "10 m");   // a unit, not a name: nothing offered
        QVERIFY(completer->wordAtCursor().isEmpty());
    }

    void modelParameterPinnedAsSliderRerunsAndCommits() {
        QVERIFY(!doc().apply(core::model::SetParameter{"spring", "stiffness", std::string("k")}, "expr"));
        gui::ParametersPanel* p = panel();
        p->table()->selectRow(p->rowOf("k2"));   // an expression: not tunable
        QTest::mouseClick(p->tuneButton(), Qt::LeftButton);
        QCOMPARE(m_window->tuning()->rowCount(), 0);
        p->table()->selectRow(p->rowOf("k"));
        QTest::mouseClick(p->tuneButton(), Qt::LeftButton);
        gui::TuningRow* row = m_window->tuning()->row(QString(), "k");
        QVERIFY(row);
        QCOMPARE(row->value(), 1e4);
        QCOMPARE(row->target(), QString("k"));
        QCOMPARE(row->unit().symbol, std::string("N/m"));
        const int steps = doc().undoStack()->count();
        QTest::keyClick(row->slider(), Qt::Key_PageUp);   // one step: re-runs and commits
        QVERIFY(m_window->runs()->active());
        QVERIFY(QTest::qWaitFor([this] { return !m_window->runs()->active(); }, 30000));
        QCOMPARE(doc().undoStack()->count(), steps + 1);
        QCOMPARE(doc().undoStack()->undoText(), QString("Tune k"));
        const double k = row->value();
        QVERIFY(k > 1e4);
        QCOMPARE(flatParam(doc(), "spring", "stiffness"), k);
        QCOMPARE(cell(p, "k2", gui::ParametersPanel::ResolvedColumn),
                 QString::fromStdString(core::formatNumber(2 * k) + " N/m"));
        QVERIFY2(m_window->runs()->current()->label.contains("(k = "), qPrintable(m_window->runs()->current()->label));
        doc().undoStack()->undo();
        QCOMPARE(row->value(), 1e4);
        // removing the parameter unpins it
        QVERIFY(p->remove("k"));
        QCOMPARE(m_window->tuning()->rowCount(), 0);
    }
};

QTEST_MAIN(TestParametersPanel)
#include "tst_parameters_panel.moc"
