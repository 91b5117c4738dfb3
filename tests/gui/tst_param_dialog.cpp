// SPDX-License-Identifier: GPL-3.0-or-later
// The generated parameter dialog and the property panel, through their widgets: dependent fields
// and conditional ports follow a choice, unit drop-downs convert (10 mm -> 0.01 m stored) and are
// remembered in ui.displayUnits, invalid input is refused with the reason next to the field,
// OK/Apply/Cancel go through the undo stack. A probe block registered here exercises visibility
// rules, which the shipped linear blocks do not have; the hard stop is checked when registered.
#include "blocks/common.hpp"
#include "blocks/registry.hpp"
#include "gui/main_window.hpp"
#include "gui/param_dialog.hpp"
#include "gui/param_form.hpp"
#include "gui/property_panel.hpp"
#include "gui_test_support.hpp"
#include "support/test_support.hpp"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QTest>
#include <QTextDocument>
#include <QThreadPool>
#include <QUndoStack>

using namespace endstop;

namespace {

// model "plain" | "fancy": `extra` and input port S exist only for "fancy"; lower < gap
class Probe final : public core::BlockT<Probe> {
public:
    explicit Probe(const core::ParamValues& p)
        : BlockT({"test.probe", 1, "Probe", "Test", "A block for the dialog tests."}, p),
          model(choice("model", "Model", "plain", {{"plain", "Plain"}, {"fancy", "Fancy"}})),
          gap(real("gap", "Gap", "m", 0.1).above(0).help("distance to the stop")),
          lower(real("lower", "Lower bound", "m", -0.1)),
          extra(real("extra", "Extra stiffness", "N/m", 1.0).visibleWhen(model, {"fancy"}).group("Fancy")),
          R(conserving("R", core::Domain::Translational, "R")),
          S(input("S", "Signal", "N").visibleWhen(model, {"fancy"})) {}
    template <class T> void equations(core::Eq<T>& eq) const { eq.through(R, T(0.0)); }
    void validateMore(core::Diagnostics& out) const override {
        if (!(real(lower) < real(gap))) out.push_back(paramError("lower", "must be < gap"));
    }

private:
    const core::Choice model;
    const core::Param gap, lower, extra;
    const core::Port R, S;
};

const core::Registry& testRegistry() {
    static const core::Registry r = [] {
        core::Registry reg;
        for (const core::BlockType& t : blocks::registry().types()) reg.addType(t);
        reg.add<Probe>();
        return reg;
    }();
    return r;
}

core::model::Model model() {
    return core::io::parseProject(R"({"format": "endstop-project", "formatVersion": 1,
      "blocks": [
        {"name": "probe", "type": "test.probe", "ui": {"pos": [0, 0]}},
        {"name": "mass1", "type": "translational.mass", "ui": {"pos": [200, 0]}},
        {"name": "k", "type": "signal.constant", "ui": {"pos": [-200, 0]}}]})",
                                  "test.endstop", testRegistry());
}

QLineEdit* line(gui::ParamForm* f, const char* key) { return qobject_cast<QLineEdit*>(f->editor(key)); }

void retype(QLineEdit* e, const QString& text) {
    e->setFocus();
    e->selectAll();
    QTest::keyClick(e, Qt::Key_Backspace);
    QTest::keyClicks(e, text);
}

double param(const gui::Document& d, const char* block, const char* key) {
    const auto& ps = d.model().find(block)->params;
    const auto it = ps.find(key);
    return it == ps.end() ? std::nan("") : std::get<double>(it->second);
}

}   // namespace

class TestParamDialog : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_settings;
    std::unique_ptr<gui::Document> m_doc;

private Q_SLOTS:
    void initTestCase() { test::isolateSettings(m_settings); }
    void init() {
        m_doc = std::make_unique<gui::Document>(testRegistry());
        m_doc->reset(model(), QString());
    }

    void dependentFieldsAndPortsFollowTheChoice() {
        gui::ParamDialog dialog(*m_doc, "probe");
        dialog.show();
        gui::ParamForm* form = dialog.form();
        QVERIFY(!form->rowVisible("extra"));
        QVERIFY(form->editor("extra")->isHidden());
        QVERIFY(!form->portsText().contains("S"));
        QVERIFY(!form->findChild<QTabWidget*>()->isTabVisible(1));   // an empty group shows no tab
        auto* choice = qobject_cast<QComboBox*>(form->editor("model"));
        QVERIFY(choice);
        choice->setCurrentIndex(choice->findData("fancy"));
        QVERIFY(form->rowVisible("extra"));
        QVERIFY(!form->editor("extra")->isHidden());
        QVERIFY2(form->portsText().contains("R, S"), qPrintable(form->portsText()));
        auto* tabs = form->findChild<QTabWidget*>();
        QVERIFY(tabs && tabs->count() == 2);
        QVERIFY(tabs->isTabVisible(1));   // the "Fancy" group appears with its field
        choice->setCurrentIndex(choice->findData("plain"));
        QVERIFY(form->editor("extra")->isHidden());
        QVERIFY(!form->portsText().contains("S"));
    }

    void hardStopModelShowsItsParameters() {
        if (!blocks::registry().find("translational.hard_stop"))
            QSKIP("translational.hard_stop is not registered in this branch");
        gui::Document doc(blocks::registry());
        doc.reset(test::modelFromJson(R"({"blocks": [{"name": "stop", "type": "translational.hard_stop"}]})"),
                  QString());
        gui::ParamForm form(doc, "stop", gui::ParamForm::Mode::Dialog);
        auto* choice = qobject_cast<QComboBox*>(form.editor("model"));
        QVERIFY(choice);
        choice->setCurrentIndex(choice->findData("smooth"));
        QVERIFY(form.rowVisible("transition_region"));
        QVERIFY(!form.rowVisible("restitution_coefficient"));
        choice->setCurrentIndex(choice->findData("restitution"));
        QVERIFY(!form.rowVisible("transition_region"));
        QVERIFY(form.rowVisible("restitution_coefficient"));
        QVERIFY(!form.rowVisible("upper_stiffness"));
    }

    // A table spring written by type version 1 locates its breakpoints (the migration), and its
    // dialog says so; OK without a change writes nothing, where today's default would have been
    // taken for a change. One of the current version shows its default, stepped through.
    void olderTypeVersionShowsWhatItRuns() {
        gui::Document doc(blocks::registry());
        for (const int version : {1, 2}) {
            doc.reset(test::modelFromJson(
                          QStringLiteral(R"({"blocks": [{"name": "k", "type": "translational.nonlinear_spring",
                "typeVersion": %1, "parameters": {"parameterization": "table"}}]})")
                              .arg(version)
                              .toStdString()),
                      QString());
            gui::ParamDialog dialog(doc, "k");
            dialog.show();
            auto* choice = qobject_cast<QComboBox*>(dialog.form()->editor("breakpoints"));
            QVERIFY(choice && !choice->isHidden());
            QCOMPARE(choice->currentData().toString(), version == 1 ? QString("events") : QString("through"));
            QTest::mouseClick(dialog.buttons()->button(QDialogButtonBox::Apply), Qt::LeftButton);
            QCOMPARE(doc.undoStack()->count(), 0);
            QVERIFY(doc.model().find("k")->params.count("breakpoints") == 0);
            if (version == 1) {   // a choice made is written and kept
                choice->setCurrentIndex(choice->findData("through"));
                QTest::mouseClick(dialog.buttons()->button(QDialogButtonBox::Apply), Qt::LeftButton);
                QCOMPARE(doc.undoStack()->count(), 1);
                QCOMPARE(std::get<std::string>(doc.model().find("k")->params.at("breakpoints")),
                         std::string("through"));
                QCOMPARE(doc.describe(*doc.model().find("k"))->values.at("breakpoints"),
                         core::ParamValue(std::string("through")));
            }
        }
    }

    void unitDropDownConvertsAndIsRemembered() {
        {
            gui::ParamDialog dialog(*m_doc, "probe");
            dialog.show();
            QComboBox* unit = dialog.form()->unitBox("gap");
            QVERIFY(unit);
            QCOMPARE(unit->currentText(), QString("m"));
            QCOMPARE(line(dialog.form(), "gap")->text(), QString("0.1"));
            unit->setCurrentIndex(unit->findText("mm"));   // the same length, shown in mm
            QCOMPARE(line(dialog.form(), "gap")->text(), QString("100"));
            retype(line(dialog.form(), "gap"), "10");
            QTest::mouseClick(dialog.buttons()->button(QDialogButtonBox::Ok), Qt::LeftButton);
            QVERIFY(!dialog.isVisible());
        }
        QCOMPARE(param(*m_doc, "probe", "gap"), 0.01);   // stored in SI
        QCOMPARE(m_doc->model().find("probe")->ui.displayUnits.at("gap"), std::string("mm"));
        QCOMPARE(m_doc->undoStack()->count(), 1);
        {
            gui::ParamDialog again(*m_doc, "probe");   // the chosen unit comes back
            QCOMPARE(again.form()->unitBox("gap")->currentText(), QString("mm"));
            QCOMPARE(line(again.form(), "gap")->text(), QString("10"));
            // a unit typed with the number wins over the drop-down
            retype(line(again.form(), "gap"), "2.5 cm");
            QVERIFY(again.apply());
        }
        QCOMPARE(param(*m_doc, "probe", "gap"), 0.025);
        {
            gui::ParamDialog rot(*m_doc, "mass1");
            QComboBox* unit = rot.form()->unitBox("mass");
            QVERIFY(unit && unit->findText("g") >= 0);
            unit->setCurrentIndex(unit->findText("g"));
            retype(line(rot.form(), "mass"), "500");
            QVERIFY(rot.apply());
        }
        QCOMPARE(param(*m_doc, "mass1", "mass"), 0.5);
    }

    void invalidInputIsRefusedWithTheReason() {
        gui::ParamDialog dialog(*m_doc, "mass1");
        dialog.show();
        const QByteArray before = test::bytes(*m_doc);
        retype(line(dialog.form(), "mass"), "abc");
        QTest::mouseClick(dialog.buttons()->button(QDialogButtonBox::Ok), Qt::LeftButton);
        QVERIFY(dialog.isVisible());   // still open
        QLabel* why = dialog.form()->errorLabel("mass");
        QVERIFY(!why->isHidden());
        QVERIFY2(why->text().contains("not a number"), qPrintable(why->text()));
        QVERIFY(!dialog.message()->isHidden());
        QCOMPARE(test::bytes(*m_doc), before);

        retype(line(dialog.form(), "mass"), "-2");
        QVERIFY(!dialog.apply());
        QVERIFY2(why->text().contains("must be > 0"), qPrintable(why->text()));
        retype(line(dialog.form(), "mass"), "3 s");
        QVERIFY(!dialog.apply());
        QVERIFY2(why->text().contains("dimension"), qPrintable(why->text()));
        QCOMPARE(test::bytes(*m_doc), before);
        retype(line(dialog.form(), "mass"), "3");
        QVERIFY(why->isHidden());   // the reason goes as soon as the entry is fixed
        QVERIFY(dialog.apply());
        QCOMPARE(param(*m_doc, "mass1", "mass"), 3.0);
    }

    void crossParameterRuleIsShownNextToItsField() {
        gui::ParamDialog dialog(*m_doc, "probe");
        dialog.show();
        retype(line(dialog.form(), "lower"), "0.5");
        QLabel* why = dialog.form()->errorLabel("lower");
        QVERIFY(!why->isHidden());
        QCOMPARE(why->text(), QString("must be < gap"));
        QVERIFY(!dialog.apply());
        QVERIFY(m_doc->model().find("probe")->params.empty());
    }

    void applyAndCancelGoThroughTheUndoStack() {
        gui::ParamDialog dialog(*m_doc, "mass1");
        dialog.show();
        retype(line(dialog.form(), "mass"), "4");
        QTest::mouseClick(dialog.buttons()->button(QDialogButtonBox::Apply), Qt::LeftButton);
        QCOMPARE(param(*m_doc, "mass1", "mass"), 4.0);
        QCOMPARE(m_doc->undoStack()->count(), 1);
        retype(line(dialog.form(), "mass"), "7");
        QTest::mouseClick(dialog.buttons()->button(QDialogButtonBox::Cancel), Qt::LeftButton);
        QCOMPARE(param(*m_doc, "mass1", "mass"), 4.0);   // cancel drops what was not applied
        QCOMPARE(m_doc->undoStack()->count(), 1);
        m_doc->undoStack()->undo();
        QVERIFY(m_doc->model().find("mass1")->params.empty());
    }

    void hidingAConnectedPortDisconnectsItInTheSameStep() {
        QVERIFY(!m_doc->apply(core::model::SetParameter{"probe", "model", std::string("fancy")}, "fancy"));
        QVERIFY(!m_doc->apply(core::model::Connect{{{"k", "y"}, {"probe", "S"}}}, "connect"));
        const QByteArray before = test::bytes(*m_doc);
        gui::ParamDialog dialog(*m_doc, "probe");
        auto* choice = qobject_cast<QComboBox*>(dialog.form()->editor("model"));
        choice->setCurrentIndex(choice->findData("plain"));
        QVERIFY(dialog.apply());
        QVERIFY(m_doc->model().connections().empty());
        m_doc->undoStack()->undo();
        QCOMPARE(test::bytes(*m_doc), before);
    }

    void tooltipsComeFromTheDescriptors() {
        gui::ParamForm form(*m_doc, "probe", gui::ParamForm::Mode::Dialog);
        QVERIFY(form.editor("gap")->toolTip().contains("distance to the stop"));
        QTextDocument shown;   // what the tooltip shows: its markup rendered
        shown.setHtml(form.editor("gap")->toolTip());
        QVERIFY2(shown.toPlainText().contains("> 0 m"), qPrintable(shown.toPlainText()));
    }

    void propertyPanelEditsInline() {
        gui::MainWindow window(testRegistry());
        window.document().reset(model(), QString());
        window.scene()->selectBlocks({"mass1"});
        QTRY_VERIFY(window.properties()->form());
        QLineEdit* mass = line(window.properties()->form(), "mass");
        retype(mass, "2 kg");
        QTest::keyClick(mass, Qt::Key_Return);
        QCOMPARE(param(window.document(), "mass1", "mass"), 2.0);
        retype(mass, "zero");
        QTest::keyClick(mass, Qt::Key_Return);
        QCOMPARE(param(window.document(), "mass1", "mass"), 2.0);   // refused, reason shown
        QVERIFY(!window.properties()->form()->errorLabel("mass")->text().isEmpty());
        window.document().undoStack()->undo();   // the panel follows the model
        QCOMPARE(line(window.properties()->form(), "mass")->text(), QString("1"));
        window.document().markClean();
        QThreadPool::globalInstance()->waitForDone();
    }

    void doubleClickOnABlockOpensItsDialog() {
        gui::MainWindow window(testRegistry());
        window.document().reset(model(), QString());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QString title;
        QTimer poll;
        QObject::connect(&poll, &QTimer::timeout, [&] {
            if (auto* d = qobject_cast<gui::ParamDialog*>(QApplication::activeModalWidget())) {
                title = d->windowTitle();
                d->reject();
            }
        });
        poll.start(10);
        const QPoint at = window.view()->mapFromScene(QPointF(200, 0));
        QTest::mouseDClick(window.view()->viewport(), Qt::LeftButton, {}, at);
        QVERIFY2(title.startsWith("mass1"), qPrintable(title));
        window.document().markClean();
        QThreadPool::globalInstance()->waitForDone();
    }
};

QTEST_MAIN(TestParamDialog)
#include "tst_param_dialog.moc"
