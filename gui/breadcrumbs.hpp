// SPDX-License-Identifier: GPL-3.0-or-later
// Breadcrumbs: the bar above the canvas naming the level shown, "Model > p (Pair) > s1 (Stage)".
// Each crumb is a button; clicking one opens that level. It follows the scene's levelChanged and
// the model's changes (a renamed instance, a definition made unique).
#pragma once

#include <QWidget>

class QHBoxLayout;

namespace endstop::gui {

class DiagramScene;

class Breadcrumbs : public QWidget {
    Q_OBJECT
public:
    Breadcrumbs(DiagramScene& scene, QWidget* parent = nullptr);
    QStringList texts() const;    // the crumbs as shown, for tests
    void clickCrumb(int index);   // as a click on crumb `index` (0: the model)

private:
    void rebuild();

    DiagramScene& m_scene;
    QHBoxLayout* m_layout;
};

}   // namespace endstop::gui
