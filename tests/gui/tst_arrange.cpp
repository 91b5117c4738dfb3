// SPDX-License-Identifier: GPL-3.0-or-later
// Arranging blocks (gui/arrange.hpp): the layout itself on hand-made networks (a chain in
// columns with straight wires, a block wired backwards mirrored, a signal source left of what
// it feeds, a reference under what it holds, and no two blocks overlapping in random networks),
// and in the main window: a file without places opens arranged and unmodified, a subsystem's
// body without places likewise, and Edit > Arrange Blocks is one undo step.
#include "blocks/registry.hpp"
#include "core/io/project_file.hpp"
#include "gui/arrange.hpp"
#include "gui/block_item.hpp"
#include "gui_test_support.hpp"
#include "support/test_support.hpp"

#include <QAction>
#include <QFile>
#include <QTest>
#include <QThreadPool>
#include <QUndoStack>

#include <cmath>
#include <map>
#include <random>
#include <set>

using namespace endstop;
using gui::ArrangeItem;
using gui::ArrangeLink;
using gui::Placement;

namespace {

// A block as the canvas draws it unturned: a 60 x 40 body with its label below, mechanical
// ports left (R) and right (C) or one on top (M), a signal output right, an input on top.
ArrangeItem twoPort() {
    return {QRectF(-40, -20, 80, 60), {{"R", QPointF(-40, 0), -1}, {"C", QPointF(40, 0), 1}}, false};
}
ArrangeItem onePort(bool reference = false) {
    return {QRectF(-30, -30, 60, 60), {{"M", QPointF(0, -30), 0}}, reference};
}
ArrangeItem signalSource() { return {QRectF(-30, -20, 70, 50), {{"y", QPointF(40, 0), 1, true, false}}, false}; }
ArrangeItem drivenSource() {
    ArrangeItem a = twoPort();
    a.ports.push_back({"S", QPointF(0, -30), 0, false, true});
    a.extent.setTop(-30);
    return a;
}

QRectF placed(const ArrangeItem& item, const Placement& p) {
    const QRectF r = item.extent;
    return (p.flip ? QRectF(-r.right(), r.top(), r.width(), r.height()) : r).translated(p.pos);
}

QPointF tipOf(const ArrangeItem& item, const Placement& p, const std::string& port) {
    for (const gui::ArrangePort& q : item.ports)
        if (q.name == port) return p.pos + (p.flip ? QPointF(-q.tip.x(), q.tip.y()) : q.tip);
    return {};
}

bool onGrid(double v) { return std::abs(v / gui::kGrid - std::round(v / gui::kGrid)) < 1e-9; }

// every pair of blocks apart, every position on the grid
void checkApart(const std::vector<ArrangeItem>& items, const std::vector<Placement>& places) {
    QCOMPARE(places.size(), items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
        QVERIFY2(onGrid(places[i].pos.x()) && onGrid(places[i].pos.y()), qPrintable(QString::number(i)));
        for (std::size_t j = i + 1; j < items.size(); ++j)
            QVERIFY2(!placed(items[i], places[i]).intersects(placed(items[j], places[j])),
                     qPrintable(QStringLiteral("blocks %1 and %2 overlap").arg(i).arg(j)));
    }
}

QRectF sceneRectOf(const gui::DiagramScene* scene, const QString& name) {
    return scene->blockItem(name)->sceneBoundingRect();
}

// no two blocks of the level shown overlap
void checkSceneApart(const gui::DiagramScene* scene) {
    const QStringList names = scene->blockItems().keys();
    QVERIFY(names.size() >= 2);
    for (qsizetype i = 0; i < names.size(); ++i)
        for (qsizetype j = i + 1; j < names.size(); ++j)
            QVERIFY2(!sceneRectOf(scene, names[i]).intersects(sceneRectOf(scene, names[j])),
                     qPrintable(names[i] + " overlaps " + names[j]));
}

}   // namespace

class TestArrange : public QObject {
    Q_OBJECT

private:
    test::ShownWindowFixture m_f;
    gui::Document& doc() const { return m_f.doc(); }
    gui::DiagramScene* scene() const { return m_f.scene(); }

    // a copy of a project with every "ui" object taken out, as a script would write it
    QString withoutPlaces(const QString& relative) const {
        core::model::Model m = test::loadSourceProject(relative);
        const auto strip = [](const core::model::Model& level) {
            std::vector<core::model::Edit> edits;
            for (const core::model::BlockSpec& b : level.blocks())
                edits.emplace_back(core::model::SetBlockUi{b.name, {}});
            return edits;
        };
        std::vector<core::model::Edit> edits = strip(m);
        for (const core::model::SubsystemDef& d : m.subsystems())
            edits.emplace_back(core::model::InSubsystem{d.name, strip(d.body)});
        m.apply(core::model::EditBatch{edits, "strip"});
        const QString path = m_f.dir.filePath(QFileInfo(relative).fileName());
        test::writeBytes(path, core::io::serializeProject(m));
        return path;
    }

private Q_SLOTS:
    void initTestCase() { m_f.start(); }
    void init() { QVERIFY(m_f.open()); }
    void cleanup() {
        m_f.close();
        QThreadPool::globalInstance()->waitForDone();
    }

    // spring - mass - spring - mass - spring, in file order: one column each, left to right, and
    // every wire straight (its two tips at one height); nothing mirrored
    void chainRunsLeftToRightWithStraightWires() {
        const std::vector<ArrangeItem> items = {twoPort(), onePort(), twoPort(), onePort(), twoPort()};
        const std::vector<ArrangeLink> links = {{0, 1, "C", "M"}, {1, 2, "M", "R"}, {2, 3, "C", "M"}, {3, 4, "M", "R"}};
        const std::vector<Placement> p = gui::arrangeBlocks(items, links);
        checkApart(items, p);
        for (std::size_t i = 1; i < p.size(); ++i) QVERIFY(p[i].pos.x() > p[i - 1].pos.x());
        for (const ArrangeLink& l : links)
            QCOMPARE(tipOf(items[at(l.a)], p[at(l.a)], l.portA).y(), tipOf(items[at(l.b)], p[at(l.b)], l.portB).y());
        for (const Placement& q : p) QVERIFY(!q.flip);
    }

    // the benchmark chain: each mass with a stop to ground and a spring and a damper to the
    // next. The masses stay on one line (with every block of a column weighing the same they
    // drifted by half a row per mass) and the ground goes under the stops
    void chainWithDeadEndsStaysLevel() {
        std::vector<ArrangeItem> items = {onePort(true)};
        std::vector<ArrangeLink> links;
        const int masses = 40;
        for (int i = 0; i < masses; ++i) {
            const int m = static_cast<int>(items.size());
            items.insert(items.end(), {onePort(), twoPort()});
            links.push_back({m, m + 1, "M", "R"});
            links.push_back({m + 1, 0, "C", "M"});
            if (i > 0) {
                links.push_back({m - 4, m - 2, "M", "R"});   // the previous mass's spring and damper
                links.push_back({m - 2, m, "C", "M"});
                links.push_back({m - 4, m - 1, "M", "R"});
                links.push_back({m - 1, m, "C", "M"});
            }
            if (i + 1 < masses) items.insert(items.end(), {twoPort(), twoPort()});
        }
        const std::vector<Placement> p = gui::arrangeBlocks(items, links);
        checkApart(items, p);
        double lowestStop = -1e9;
        for (std::size_t m = 1, i = 0; m < items.size(); m += 4, ++i) {
            QCOMPARE(p[m].pos.y(), p[1].pos.y());
            if (i > 0) QVERIFY(p[m].pos.x() > p[m - 4].pos.x());
            lowestStop = std::max(lowestStop, placed(items[m + 1], p[m + 1]).bottom());
        }
        QVERIFY(placed(items[0], p[0]).top() > lowestStop);
    }

    // the middle spring wired C to the mass before it and R to the one after: mirrored, so that
    // both of its wires leave toward their blocks; the others not
    void blockWiredBackwardsIsMirrored() {
        const std::vector<ArrangeItem> items = {twoPort(), onePort(), twoPort(), onePort()};
        const std::vector<ArrangeLink> links = {{0, 1, "C", "M"}, {1, 2, "M", "C"}, {2, 3, "R", "M"}};
        const std::vector<Placement> p = gui::arrangeBlocks(items, links);
        checkApart(items, p);
        QVERIFY(!p[0].flip);
        QVERIFY(p[2].flip);
        QVERIFY(tipOf(items[2], p[2], "C").x() < p[2].pos.x());   // C now on the left, toward mass 1
        QVERIFY(p[1].pos.x() < p[2].pos.x() && p[2].pos.x() < p[3].pos.x());
    }

    // a sine feeding a force source on a mass, the source's case on a reference: the sine left
    // of the source whichever block the file names first, the reference below the source with its
    // port under the source's C, and the source's R facing the mass
    void signalSourceLeftOfWhatItFeedsAndReferenceBelow_data() {
        QTest::addColumn<bool>("massFirst");
        QTest::newRow("sine first") << false;
        QTest::newRow("mass first") << true;
    }
    void signalSourceLeftOfWhatItFeedsAndReferenceBelow() {
        QFETCH(bool, massFirst);
        std::vector<ArrangeItem> items = {signalSource(), drivenSource(), onePort(), onePort(true)};
        std::vector<ArrangeLink> links = {{0, 1, "y", "S"}, {1, 2, "R", "M"}, {1, 3, "C", "M"}};
        if (massFirst) {   // the same network, listed backwards
            std::reverse(items.begin(), items.end());
            for (ArrangeLink& l : links) {
                l.a = 3 - l.a;
                l.b = 3 - l.b;
            }
        }
        const auto ix = [&](int i) { return at(massFirst ? 3 - i : i); };
        const std::vector<Placement> p = gui::arrangeBlocks(items, links);
        checkApart(items, p);
        const QPointF sine = p[ix(0)].pos, source = p[ix(1)].pos, mass = p[ix(2)].pos;
        QVERIFY(sine.x() < source.x());
        const double rSide = tipOf(items[ix(1)], p[ix(1)], "R").x() - source.x();
        QVERIFY(rSide * (mass.x() - source.x()) > 0);
        const QRectF ref = placed(items[ix(3)], p[ix(3)]);
        QVERIFY(ref.top() > placed(items[ix(1)], p[ix(1)]).bottom());
        QCOMPARE(tipOf(items[ix(3)], p[ix(3)], "M").x(), tipOf(items[ix(1)], p[ix(1)], "C").x());
    }

    // random networks of up to 30 blocks, some parts unconnected, references among them: no
    // two blocks overlap, every place is on the grid, and the same input gives the same layout
    void randomNetworksNeverOverlap() {
        std::mt19937 rng(20261207);
        for (int n = 0; n < 400; ++n) {
            std::uniform_int_distribution<int> size(1, 30), kind(0, 4);
            std::vector<ArrangeItem> items;
            const int count = size(rng);
            for (int i = 0; i < count; ++i) {
                switch (kind(rng)) {
                    case 0:
                        items.push_back(twoPort());
                        break;
                    case 1:
                        items.push_back(onePort());
                        break;
                    case 2:
                        items.push_back(onePort(true));
                        break;
                    case 3:
                        items.push_back(signalSource());
                        break;
                    default:
                        items.push_back(drivenSource());
                        break;
                }
            }
            std::vector<ArrangeLink> links;
            std::uniform_int_distribution<int> pick(0, count - 1);
            std::uniform_int_distribution<int> linkCount(0, 2 * count);
            for (int k = linkCount(rng); k > 0; --k) {
                const int a = pick(rng), b = pick(rng);
                const auto port = [&](int i) {
                    std::uniform_int_distribution<std::size_t> which(0, items[at(i)].ports.size() - 1);
                    return items[at(i)].ports[which(rng)].name;
                };
                links.push_back({a, b, port(a), port(b)});
            }
            const std::vector<Placement> p = gui::arrangeBlocks(items, links);
            checkApart(items, p);
            if (QTest::currentTestFailed()) {
                qWarning("network %d: %d blocks, %zu links", n, count, links.size());
                return;
            }
            const std::vector<Placement> again = gui::arrangeBlocks(items, links);
            for (std::size_t i = 0; i < p.size(); ++i) QCOMPARE(again[i].pos, p[i].pos);
        }
        QVERIFY(gui::arrangeBlocks({}, {}).empty());
    }

    // a file that gives no block a place (as the benchmark generator writes them) opens with
    // no two blocks overlapping, unmodified and with nothing to undo; saved, it keeps the places,
    // and opened again nothing moves
    void fileWithoutPlacesOpensArranged() {
        const QString path = withoutPlaces(QStringLiteral("tests/blocks/msl/CoupledClutches.endstop"));
        QVERIFY(m_f.window->openFile(path));
        checkSceneApart(scene());
        QVERIFY(!doc().isDirty());
        QCOMPARE(doc().undoStack()->count(), 0);
        QVERIFY(scene()->lastStatus().contains(QStringLiteral("13 blocks")));
        // the chain runs left to right
        QVERIFY(sceneRectOf(scene(), "J1").center().x() < sceneRectOf(scene(), "J2").center().x());
        QVERIFY(sceneRectOf(scene(), "J2").center().x() < sceneRectOf(scene(), "J3").center().x());
        QVERIFY(sceneRectOf(scene(), "J3").center().x() < sceneRectOf(scene(), "J4").center().x());
        // and the reference sits under the source it holds
        QVERIFY(sceneRectOf(scene(), "fixed").top() > sceneRectOf(scene(), "torque").bottom());

        const QString saved = m_f.dir.filePath("saved.endstop");
        QVERIFY(m_f.window->saveTo(saved));
        const core::model::Model m = core::io::loadProject(saved, blocks::registry());
        std::set<std::pair<double, double>> places;
        for (const core::model::BlockSpec& b : m.blocks()) {
            QCOMPARE(QPointF(b.ui.x, b.ui.y), scene()->blockItem(QString::fromStdString(b.name))->pos());
            places.insert({b.ui.x, b.ui.y});
        }
        QCOMPARE(places.size(), m.blocks().size());
        QVERIFY(m_f.window->openFile(saved));
        QCOMPARE(test::bytes(doc()), test::readBytes(saved));
    }

    // blocks with places keep them; two without go below them
    void blocksWithoutPlacesGoBelowThePlacedOnes() {
        core::model::Model m = test::loadSourceProject(QStringLiteral("resources/examples/mass_spring_damper.endstop"));
        const core::model::Model original = m;
        m.apply(core::model::AddBlock{{"extra_mass", "translational.mass", 1, {}, {}}});
        m.apply(core::model::AddBlock{{"extra_spring", "translational.spring", 1, {}, {}}});
        m.apply(core::model::Connect{{{"extra_spring", "C"}, {"extra_mass", "M"}}});
        const QString path = m_f.dir.filePath("partly.endstop");
        test::writeBytes(path, core::io::serializeProject(m));
        QVERIFY(m_f.window->openFile(path));
        double lowest = -1e9;
        for (const core::model::BlockSpec& b : original.blocks()) {
            QCOMPARE(doc().model().find(b.name)->ui, b.ui);
            lowest = std::max(lowest, sceneRectOf(scene(), QString::fromStdString(b.name)).bottom());
        }
        QVERIFY(sceneRectOf(scene(), "extra_mass").top() > lowest);
        QVERIFY(sceneRectOf(scene(), "extra_spring").top() > lowest);
        checkSceneApart(scene());
        QVERIFY(!doc().isDirty());
    }

    // two blocks a user put on one spot (not [0, 0]) stay there when the file is opened again
    void blocksOnOneSpotElsewhereStay() {
        core::model::Model m = test::loadSourceProject(QStringLiteral("resources/examples/mass_spring_damper.endstop"));
        m.apply(core::model::MoveBlock{"spring1", 200, 100});
        m.apply(core::model::MoveBlock{"damper1", 200, 100});
        const QString path = m_f.dir.filePath("one_spot.endstop");
        test::writeBytes(path, core::io::serializeProject(m));
        QVERIFY(m_f.window->openFile(path));
        QCOMPARE(test::bytes(doc()), core::io::serializeProject(m));
        QCOMPARE(scene()->blockItem("damper1")->pos(), QPointF(200, 100));
    }

    // a definition's body without places is arranged when it is opened, the document unmodified
    void subsystemBodyWithoutPlacesOpensArranged() {
        const QString path = withoutPlaces(QStringLiteral("tests/core/model/fixtures/translational_nested.endstop"));
        QVERIFY(m_f.window->openFile(path));
        checkSceneApart(scene());
        QVERIFY(scene()->openInstance(QStringLiteral("p")));
        checkSceneApart(scene());   // L, s1, mid, s2, R
        QVERIFY(sceneRectOf(scene(), "s1").center().x() < sceneRectOf(scene(), "mid").center().x());
        QVERIFY(sceneRectOf(scene(), "mid").center().x() < sceneRectOf(scene(), "s2").center().x());
        QVERIFY(scene()->openInstance(QStringLiteral("s1")));
        checkSceneApart(scene());
        QVERIFY(!doc().isDirty());
        QCOMPARE(doc().undoStack()->count(), 0);
    }

    // Edit > Arrange Blocks on a drawn example: one undo step that undo takes back whole; at once
    // again it has nothing to do
    void arrangeBlocksIsOneUndoStep() {
        const QString drawn = m_f.dir.filePath("drive_train_drawn.endstop");
        QFile::remove(drawn);
        QVERIFY(QFile::copy(test::sourcePath("resources/examples/drive_train.endstop"), drawn));
        QVERIFY(m_f.window->openFile(drawn));
        const QByteArray before = test::bytes(doc());
        QAction* arrange = m_f.window->findChild<QAction*>(QStringLiteral("arrange"));
        QVERIFY(arrange);
        arrange->trigger();
        QCOMPARE(doc().undoStack()->count(), 1);
        QCOMPARE(doc().undoStack()->undoText(), QStringLiteral("Arrange Blocks"));
        QVERIFY(test::bytes(doc()) != before);
        checkSceneApart(scene());
        const QByteArray arranged = test::bytes(doc());
        arrange->trigger();
        QCOMPARE(doc().undoStack()->count(), 1);
        QCOMPARE(test::bytes(doc()), arranged);
        QVERIFY(scene()->lastStatus().contains(QStringLiteral("arranged already")));
        doc().undoStack()->undo();
        QCOMPARE(test::bytes(doc()), before);
        for (const core::model::BlockSpec& b : doc().model().blocks())
            QCOMPARE(scene()->blockItem(QString::fromStdString(b.name))->pos(), QPointF(b.ui.x, b.ui.y));
    }

private:
    static std::size_t at(int i) { return static_cast<std::size_t>(i); }
};

QTEST_MAIN(TestArrange)
#include "tst_arrange.moc"
