// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers for the GUI tests: isolated settings, real mouse events on the canvas, answering modal
// message boxes, and the saved bytes of a document (the exact model).
#pragma once

#include "blocks/registry.hpp"
#include "core/io/project_file.hpp"
#include "gui/diagram_scene.hpp"
#include "gui/diagram_view.hpp"
#include "gui/document.hpp"
#include "gui/main_window.hpp"

#include <QAbstractButton>
#include <QApplication>
#include <QMessageBox>
#include <QMouseEvent>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>
#include <QTemporaryDir>
#include <QTimer>

#include <memory>

namespace endstop::test {

// QSettings and the recovery folder in a temporary directory, so tests never see the user's.
inline void isolateSettings(QTemporaryDir& dir) {
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.path());
    QSettings().clear();
}

// A main window shown (offscreen), active and exposed, as the GUI tests drive it.
inline std::unique_ptr<gui::MainWindow> shownWindow(QSize size = QSize(1280, 800)) {
    auto w = std::make_unique<gui::MainWindow>(blocks::registry());
    w->resize(size);
    w->show();
    QApplication::setActiveWindow(w.get());
    if (!QTest::qWaitForWindowExposed(w.get())) return nullptr;
    return w;
}

// What a test class of the shown main window keeps: isolated settings (set up by start()), a
// scratch folder, and the window, made anew for each test function.
struct ShownWindowFixture {
    QTemporaryDir settings;
    QTemporaryDir dir;
    std::unique_ptr<gui::MainWindow> window;
    void start() { isolateSettings(settings); }
    bool open() {
        window = shownWindow();
        return window != nullptr;
    }
    void close() {
        window->document().markClean();
        window.reset();
    }
    gui::Document& doc() const { return window->document(); }
    gui::DiagramScene* scene() const { return window->scene(); }
};

inline QByteArray bytes(const gui::Document& doc) { return core::io::serializeProject(doc.model()); }

// One mouse event on the view's viewport at a scene position, with explicit button state.
inline void mouse(gui::DiagramView* view, QEvent::Type type, QPointF scenePos, Qt::MouseButton button = Qt::LeftButton,
                  Qt::KeyboardModifiers mods = {}) {
    const QPoint p = view->mapFromScene(scenePos);
    const Qt::MouseButtons held = type == QEvent::MouseButtonRelease ? Qt::NoButton : Qt::MouseButtons(button);
    QMouseEvent e(type, QPointF(p), view->viewport()->mapToGlobal(QPointF(p)),
                  type == QEvent::MouseMove ? Qt::NoButton : button, held, mods);
    QApplication::sendEvent(view->viewport(), &e);
}

// press at `from`, move in steps, release at `to`: a real drag
inline void drag(gui::DiagramView* view, QPointF from, QPointF to, Qt::KeyboardModifiers mods = {}) {
    mouse(view, QEvent::MouseButtonPress, from, Qt::LeftButton, mods);
    for (int i = 1; i <= 5; ++i) mouse(view, QEvent::MouseMove, from + (to - from) * (i / 5.0), Qt::LeftButton, mods);
    mouse(view, QEvent::MouseButtonRelease, to, Qt::LeftButton, mods);
}

inline QPointF portTip(const gui::DiagramScene* scene, const std::string& block, const std::string& port) {
    const auto end = scene->portEnd({block, port});
    return end ? end->pos : QPointF();
}

// Answers the next modal message box with `button`; its text lands in *text. Polls, because the
// box runs its own event loop.
class MessageBoxAnswer : public QObject {
public:
    MessageBoxAnswer(QMessageBox::StandardButton button, QString* text) : m_button(button), m_text(text) {
        auto* timer = new QTimer(this);
        QObject::connect(timer, &QTimer::timeout, this, [this, timer] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box) return;
            if (m_text) *m_text = box->text() + QStringLiteral("\n") + box->informativeText();
            ++m_answered;
            timer->stop();
            if (QAbstractButton* b = box->button(m_button))
                b->click();
            else
                box->reject();
        });
        timer->start(10);
    }
    int answered() const { return m_answered; }

private:
    QMessageBox::StandardButton m_button;
    QString* m_text;
    int m_answered = 0;
};

}   // namespace endstop::test
