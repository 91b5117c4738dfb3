// SPDX-License-Identifier: GPL-3.0-or-later
// The bundled resources: every icon is a valid SVG, the schematic symbols exist, every shipped
// block type finds an icon (or the generic one), and every example in resources/examples is
// compiled in (Help > Examples) and loads.
#include "blocks/registry.hpp"
#include "core/io/project_file.hpp"
#include "gui/block_shape.hpp"
#include "gui/resources.hpp"
#include "support/test_support.hpp"

#include <QDir>
#include <QFile>
#include <QSvgRenderer>
#include <QTest>

using namespace endstop;

class TestResources : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { gui::initResources(); }

    void iconsAreValidSvg() {
        const QStringList icons = QDir(":/icons").entryList({"*.svg"}) + QDir(":/icons/ui").entryList({"*.svg"});
        QVERIFY(icons.size() > 20);
        for (const QString& f : QDir(":/icons").entryList({"*.svg"}))
            QVERIFY2(QSvgRenderer(":/icons/" + f).isValid(), qPrintable(f));
        for (const QString& f : QDir(":/icons/ui").entryList({"*.svg"}))
            QVERIFY2(QSvgRenderer(":/icons/ui/" + f).isValid(), qPrintable(f));
    }

    void schematicSymbolsExist() {
        for (const char* type :
             {"translational.hard_stop", "translational.spring", "translational.damper", "translational.mass",
              "translational.stiction", "rotational.hard_stop", "rotational.stiction"})
            QVERIFY2(gui::iconPathFor(type) != ":/icons/generic.svg", type);
        QCOMPARE(gui::iconPathFor("vendor.unknown_thing"), QString(":/icons/generic.svg"));
    }

    void everyShippedBlockHasItsOwnIcon() {   // a new block type brings resources/icons/<name>.svg
        for (const core::BlockType& t : blocks::registry().types())
            QVERIFY2(gui::iconPathFor(QString::fromStdString(t.info.typeId)) != ":/icons/generic.svg",
                     t.info.typeId.c_str());
        // the catalogue's blocks still to come have theirs already
        for (const char* type : {"translational.nonlinear_spring", "rotational.friction_inertia"})
            QVERIFY2(gui::iconPathFor(type) != ":/icons/generic.svg", type);
    }

    void everyExampleIsBundledAndLoads() {
        const QStringList files = QDir(test::sourcePath("resources/examples")).entryList({"*.endstop"});
        QVERIFY(!files.isEmpty());
        for (const QString& f : files) {
            QVERIFY2(QFile::exists(":/examples/" + f), qPrintable(f + " is not listed in resources/endstop.qrc"));
            core::io::loadProject(":/examples/" + f, blocks::registry());
        }
    }
};

QTEST_MAIN(TestResources)
#include "tst_resources.moc"
