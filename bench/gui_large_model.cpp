// SPDX-License-Identifier: GPL-3.0-or-later
// bench_gui_large_model [--blocks N] [--write FILE] [--keep]
// Generates an N-block model (default 2000: cells of step -> force source -> mass - spring -
// reference), saves it, then measures in the real main window (offscreen unless a platform is
// given): opening the file, painting, dragging the whole selection, wheel zoom, undo of the move,
// and the background validation. Each "frame" is one input event plus a synchronous repaint of
// the canvas, so the times are what a user waits between two mouse moves.
#include "blocks/registry.hpp"
#include "core/io/project_file.hpp"
#include "core/simulation/simulate.hpp"
#include "gui/diagnostics_panel.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/diagram_view.hpp"
#include "gui/document.hpp"
#include "gui/main_window.hpp"

#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QUndoStack>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace endstop;

namespace {

core::model::Model generate(int blocks) {
    core::model::Model m;
    const auto add = [&](const std::string& name, const char* type, double x, double y) {
        core::model::BlockSpec b;
        b.name = name;
        b.type = type;
        b.ui.x = x;
        b.ui.y = y;
        m.apply(core::model::AddBlock{b});
    };
    const auto wire = [&](const std::string& a, const std::string& b) {
        m.apply(core::model::Connect{{*core::model::PortRef::parse(a), *core::model::PortRef::parse(b)}});
    };
    const int cells = blocks / 5;
    for (int c = 0; c < cells; ++c) {
        const double x = (c % 8) * 900.0, y = (c / 8) * 200.0;
        const std::string n = std::to_string(c);
        add("step" + n, "signal.step", x, y);
        add("force" + n, "translational.force_source", x + 160, y);
        add("mass" + n, "translational.mass", x + 360, y);
        add("spring" + n, "translational.spring", x + 520, y);
        add("ground" + n, "translational.reference", x + 680, y);
        wire("step" + n + ".y", "force" + n + ".S");
        wire("force" + n + ".R", "mass" + n + ".M");
        wire("force" + n + ".C", "ground" + n + ".R");
        wire("mass" + n + ".M", "spring" + n + ".R");
        wire("spring" + n + ".C", "ground" + n + ".R");
    }
    return m;
}

struct Stats {
    double median = 0, p95 = 0, max = 0;
};
Stats stats(std::vector<double> ms) {
    std::sort(ms.begin(), ms.end());
    if (ms.empty()) return {};
    return {ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 95 / 100)], ms.back()};
}
void report(const char* what, const std::vector<double>& ms) {
    const Stats s = stats(ms);
    std::printf("%-34s median %7.1f ms   p95 %7.1f ms   max %7.1f ms   (%zu frames)\n", what, s.median, s.p95, s.max,
                ms.size());
}

void mouse(gui::DiagramView* v, QEvent::Type type, QPoint p, Qt::MouseButtons held) {
    QMouseEvent e(type, QPointF(p), v->viewport()->mapToGlobal(QPointF(p)),
                  type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton, held, {});
    QApplication::sendEvent(v->viewport(), &e);
}

double elapsedMs(QElapsedTimer& t) { return static_cast<double>(t.nsecsElapsed()) / 1e6; }

std::vector<double> dragFrames(gui::MainWindow& w, QPointF grabScene, int frames) {
    gui::DiagramView* v = w.view();
    std::vector<double> ms;
    QPoint p = v->mapFromScene(grabScene);
    mouse(v, QEvent::MouseButtonPress, p, Qt::LeftButton);
    for (int i = 0; i < frames; ++i) {
        QElapsedTimer t;
        t.start();
        p += QPoint(3, 2);
        mouse(v, QEvent::MouseMove, p, Qt::LeftButton);
        v->viewport()->repaint();
        ms.push_back(elapsedMs(t));
    }
    QElapsedTimer t;
    t.start();
    mouse(v, QEvent::MouseButtonRelease, p, Qt::NoButton);
    v->viewport()->repaint();
    std::printf("%-34s %7.1f ms\n", "release (one Move edit of all)", elapsedMs(t));
    t.restart();
    w.scene()->routePending();
    std::printf("%-34s %7.1f ms\n", "  then final routes of moved wires", elapsedMs(t));
    return ms;
}

}   // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName("EndstopBench");
    int blocks = 2000;
    QString out;
    const QStringList args = QApplication::arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == "--blocks" && i + 1 < args.size())
            blocks = args[++i].toInt();
        else if (args[i] == "--write" && i + 1 < args.size())
            out = args[++i];
    }
    QTemporaryDir dir;
    if (out.isEmpty()) out = dir.filePath("large.endstop");
    const core::model::Model model = generate(blocks);
    core::io::saveProject(model, out);
    std::printf("model: %zu blocks, %zu connections -> %s\n", model.blocks().size(), model.connections().size(),
                qPrintable(out));

    QElapsedTimer t;
    t.start();
    const core::model::Model parsed = core::io::loadProject(out, blocks::registry());
    std::printf("%-34s %7.1f ms\n", "parse file (core)", elapsedMs(t));
    t.restart();
    const core::Diagnostics d = core::simulation::validateModel(parsed, blocks::registry());
    std::printf("%-34s %7.1f ms   (%zu diagnostics; worker thread in the GUI)\n", "validateModel", elapsedMs(t),
                d.size());

    gui::MainWindow w(blocks::registry());
    w.resize(1600, 1000);
    w.show();
    QApplication::processEvents();
    t.restart();
    w.openFile(out);
    const double open = elapsedMs(t);
    QApplication::processEvents();   // the deferred fit
    w.view()->viewport()->repaint();
    std::printf("%-34s %7.1f ms   (+ first paint, fit to view: %.1f ms total)\n", "open in the window", open,
                elapsedMs(t));
    t.restart();
    w.scene()->routePending();
    std::printf("%-34s %7.1f ms   (after the first paint, on the event loop)\n", "final wire routes (A*)",
                elapsedMs(t));

    // the whole model visible: the worst case for painting
    w.view()->fitAll();
    t.restart();
    w.scene()->selectBlocks(w.scene()->blockItems().keys());
    QApplication::processEvents();   // the property panel follows
    w.view()->viewport()->repaint();
    std::printf("%-34s %7.1f ms\n", "select all", elapsedMs(t));
    const double zoomFit = w.view()->zoom();
    const auto fitDrag =
        dragFrames(w, QPointF(w.document().model().blocks()[2].ui.x, w.document().model().blocks()[2].ui.y), 30);
    report("drag 2000 selected, whole model", fitDrag);

    t.restart();
    w.document().undoStack()->undo();
    w.view()->viewport()->repaint();
    std::printf("%-34s %7.1f ms\n", "undo the move", elapsedMs(t));
    w.scene()->routePending();

    std::vector<double> zoom;
    for (int i = 0; i < 20; ++i) {
        QElapsedTimer f;
        f.start();
        const QPoint c = w.view()->viewport()->rect().center();
        QWheelEvent wheel(QPointF(c), w.view()->viewport()->mapToGlobal(QPointF(c)), {}, QPoint(0, i < 10 ? 120 : -120),
                          Qt::NoButton, {}, Qt::NoScrollPhase, false);
        QApplication::sendEvent(w.view()->viewport(), &wheel);
        w.view()->viewport()->repaint();
        zoom.push_back(elapsedMs(f));
    }
    report("wheel zoom in/out, 2000 selected", zoom);

    w.view()->setTransform(QTransform());
    w.view()->centerOn(400, 300);
    const auto closeDrag =
        dragFrames(w, QPointF(w.document().model().blocks()[2].ui.x, w.document().model().blocks()[2].ui.y), 30);
    report("drag 2000 selected, zoom 1", closeDrag);

    w.scene()->selectBlocks({"mass0"});
    const auto one = dragFrames(w, QPointF(w.document().model().find("mass0")->ui.x, 0), 30);
    report("drag one block, zoom 1", one);

    std::printf("fit zoom %.3f; validations started: %d\n", zoomFit, w.diagnostics()->validationsStarted());
    w.document().markClean();
    QThreadPool::globalInstance()->waitForDone();
    return 0;
}
