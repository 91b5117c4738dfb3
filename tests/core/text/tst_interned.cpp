// SPDX-License-Identifier: GPL-3.0-or-later
// Interned text (core/text/interned.hpp): one copy of each text, whichever thread asks, and result
// columns that hold their repeated texts that way.
#include "core/results/results.hpp"
#include "core/text/interned.hpp"

#include <QTest>

#include <sstream>
#include <thread>
#include <vector>

using endstop::core::Interned;

class TestInterned : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void oneCopyPerText() {
        const Interned a("m/s"), b(std::string("m/s")), c(std::string_view("m/s2").substr(0, 3));
        QCOMPARE(&a.str(), &b.str());
        QCOMPARE(&a.str(), &c.str());
        QVERIFY(a == b);
        QVERIFY(!(a == Interned("m")));
        QVERIFY(a == "m/s" && a == std::string("m/s") && a == std::string_view("m/s"));
        QCOMPARE(&Interned().str(), &Interned("").str());
        QVERIFY(Interned().empty());
        QCOMPARE(a + " per step", std::string("m/s per step"));
        std::ostringstream out;
        out << a;
        QCOMPARE(out.str(), std::string("m/s"));
    }

    void oneCopyAcrossThreads() {
        std::vector<std::vector<const std::string*>> seen(4);
        std::vector<std::thread> threads;
        for (auto& s : seen)
            threads.emplace_back([&s] {
                for (int i = 0; i < 500; ++i) s.push_back(&Interned("text " + std::to_string(i)).str());
            });
        for (std::thread& t : threads) t.join();
        for (const auto& s : seen) QVERIFY(s == seen.front());
    }

    // what the interning is for: a column's repeated texts cost a pointer each
    void columnsStaySmall() {
        const endstop::core::Column c{"stop1.f", std::string("N"), std::string("Contact force"), "stop1", "f"};
        QCOMPARE(c.label.str(), std::string("Contact force"));
        QVERIFY(sizeof(endstop::core::Column) <= 2 * sizeof(std::string) + 3 * sizeof(void*));
    }
};

QTEST_GUILESS_MAIN(TestInterned)
#include "tst_interned.moc"
