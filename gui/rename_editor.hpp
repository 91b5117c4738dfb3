// SPDX-License-Identifier: GPL-3.0-or-later
// The inline editor over a block's name label (F2 or double-click on the label). Enter or leaving
// it commits through DiagramScene::renameBlock (which refuses invalid or taken names with a
// message); Escape cancels.
#pragma once

#include <QGraphicsTextItem>

namespace endstop::gui {

class DiagramScene;

class RenameEditor final : public QGraphicsTextItem {
public:
    RenameEditor(DiagramScene& scene, const QString& name);
    const QString& original() const { return m_original; }
    void commit();
    void cancel();

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;

private:
    void close();
    DiagramScene& m_scene;
    QString m_original;
    bool m_done = false;
};

}   // namespace endstop::gui
