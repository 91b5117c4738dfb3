// SPDX-License-Identifier: GPL-3.0-or-later
// The wire router: orthogonal, leaves and enters ports the right way, goes around block bodies,
// keeps off lanes other wires run in; and on the bundled example no wire crosses a block.
#include "blocks/registry.hpp"
#include "gui/block_item.hpp"
#include "gui/router.hpp"
#include "gui/wire_item.hpp"
#include "gui_test_support.hpp"
#include "support/test_support.hpp"

#include <QTest>

using namespace endstop;

namespace {

bool orthogonal(const QPolygonF& p) {
    for (int i = 1; i < p.size(); ++i)
        if (p[i].x() != p[i - 1].x() && p[i].y() != p[i - 1].y()) return false;
    return true;
}

// does any segment of the route (ignoring the port stubs at both ends) pass through r?
bool crosses(const QPolygonF& p, const QRectF& r) {
    for (int i = 2; i + 1 < p.size() - 1; ++i) {
        const QRectF seg = QRectF(p[i - 1], p[i]).normalized().adjusted(-0.5, -0.5, 0.5, 0.5);
        if (seg.intersects(r.adjusted(1, 1, -1, -1))) return true;
    }
    return false;
}

QPolygonF polygon(const QPainterPath& path) {
    QPolygonF p;
    for (int i = 0; i < path.elementCount(); ++i) p << QPointF(path.elementAt(i));
    return p;
}

}   // namespace

class TestRouter : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void goesAroundAnObstacle() {
        const QRectF wall(90, -100, 20, 200);
        gui::Router router([&](const QRectF&) { return gui::Router::Obstacles{{wall}, {}}; });
        const auto route = router.route({0, 0}, {1, 0}, {200, 0}, {-1, 0});
        QVERIFY(route);
        QVERIFY(orthogonal(*route));
        QCOMPARE(route->front(), QPointF(0, 0));
        QCOMPARE((*route)[1], QPointF(10, 0));   // leaves along its port's direction
        QCOMPARE(route->back(), QPointF(200, 0));
        QCOMPARE((*route)[route->size() - 2], QPointF(190, 0));   // enters against it
        for (int i = 1; i < route->size(); ++i)
            QVERIFY2(!QRectF((*route)[i - 1], (*route)[i]).normalized().adjusted(-0.5, -0.5, 0.5, 0.5).intersects(wall),
                     "the route crosses the obstacle");
    }

    void straightWhenNothingIsInTheWay() {
        gui::Router router([](const QRectF&) { return gui::Router::Obstacles{}; });
        const auto route = router.route({0, 0}, {1, 0}, {200, 0}, {-1, 0});
        QVERIFY(route);
        QCOMPARE(route->size(), 4);   // a, stub, stub, b: one straight line
        QVERIFY(orthogonal(*route));
    }

    void keepsOffAnotherWiresLane() {
        gui::Router router([](const QRectF&) { return gui::Router::Obstacles{}; });
        const auto first = router.route({0, 0}, {1, 0}, {200, 0}, {-1, 0});
        router.occupy(*first, +1);
        const auto second = router.route({0, 10}, {1, 0}, {200, 0}, {-1, 0});
        QVERIFY(second);
        // the second wire may cross the first but does not run along y = 0 with it
        int along = 0;
        for (int i = 2; i + 1 < second->size() - 1; ++i)
            if ((*second)[i - 1].y() == 0 && (*second)[i].y() == 0)
                along += int(std::abs((*second)[i].x() - (*second)[i - 1].x()));
        QCOMPARE(along, 0);
        router.occupy(*first, -1);   // lifted: the lane is free again
        const auto again = router.route({0, 0}, {1, 0}, {200, 0}, {-1, 0});
        QCOMPARE(again->size(), 4);
    }

    void exampleWiresGoAroundBlocks() {
        gui::Document doc(blocks::registry());
        gui::DiagramScene scene(doc);
        doc.reset(test::loadExample("mass_spring_damper.endstop"), QString());
        scene.routePending();
        QVERIFY(!scene.routesPending());
        int wires = 0;
        for (QGraphicsItem* i : scene.items()) {
            if (i->type() != gui::WireItem::Type) continue;
            ++wires;
            const QPolygonF route = polygon(static_cast<gui::WireItem*>(i)->route());
            QVERIFY(orthogonal(route));
            for (auto* b : scene.blockItems())
                QVERIFY2(!crosses(route, b->mapRectToScene(b->bodyTransform().mapRect(b->layout().body))),
                         qPrintable(QString::fromStdString(static_cast<gui::WireItem*>(i)->connection().a.toString()) +
                                    " crosses " + b->name()));
        }
        QCOMPARE(wires, 7);
    }
};

QTEST_MAIN(TestRouter)
#include "tst_router.moc"
