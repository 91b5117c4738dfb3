// SPDX-License-Identifier: GPL-3.0-or-later
// DiagramScene: the canvas, built from the model and never the reverse. Items are created and
// destroyed only in reaction to Document signals; user gestures become core Edits applied through
// the Document (one undo step each: a drag of many blocks is one Move batch on release).
//   diagram_scene.cpp   items <-> model synchronisation, grid, selection helpers
//   scene_input.cpp     mouse: wire drawing and detaching, move commit, double-click, rename editor
//   scene_commands.cpp  edits: add, delete, rotate, flip, copy/paste/duplicate, rename
//   scene_placement.cpp where added and pasted blocks land (free space near the wanted spot)
//   scene_levels.cpp    the level shown (the model or a subsystem definition's body), subsystem
//                       commands (create, expand, make unique), block shapes
// The scene shows one level at a time: the model, or the body of the definition of the instance
// at levelPath() ("p", "s1"). Edits made there are applied as InSubsystem{definition, edit}, so
// they change every instance of that definition.
#pragma once

#include "core/model/model.hpp"
#include "gui/block_shape.hpp"
#include "gui/router.hpp"

#include <QGraphicsScene>
#include <QHash>
#include <QSet>

#include <optional>

class QMimeData;
class QGraphicsPathItem;
class QTimer;

namespace endstop::gui {

class BlockItem;
class Document;
class RenameEditor;
class WireItem;

struct PortEnd {
    QPointF pos, dir;
    core::PortKind kind = core::PortKind::Conserving;
    core::Domain domain = core::Domain::Translational;
    bool present = true;   // false: the block exists but has no such port now
};

inline constexpr const char* kBlocksMime = "application/x-endstop-blocks";

class DiagramScene : public QGraphicsScene {
    Q_OBJECT
public:
    explicit DiagramScene(Document& doc, QObject* parent = nullptr);
    ~DiagramScene() override;

    Document& document() const { return m_doc; }

    // levels (scene_levels.cpp)
    const QStringList& levelPath() const { return m_level; }   // instance names from the top
    QString levelDefinition() const;                           // "Stage"; empty at the top
    const core::model::Model& levelModel() const;              // what the scene shows
    bool openLevel(const QStringList& path);                   // false (and nothing changed) if it does not resolve
    bool openInstance(const QString& instance);                // the instance's definition, one level down
    // an edit of the level shown, as one undo step (wrapped in InSubsystem below the top; the
    // AddSubsystem/RemoveSubsystem edits of a batch go to the top)
    std::optional<QString> applyEdit(const core::model::Edit& edit, const QString& label);
    core::model::Edit forLevel(const core::model::Edit& edit) const;   // wrapped as applyEdit wraps it
    BlockShape shapeOf(const core::model::BlockSpec& spec) const;      // registered block, instance or port
    bool isInstance(const QString& block) const;
    bool createSubsystem();   // from the selection; refusals go to statusMessage
    bool expandSubsystem(const QString& instance);
    bool makeUnique(const QString& instance);
    BlockItem* blockItem(const QString& name) const { return m_blocks.value(name); }
    const QHash<QString, BlockItem*>& blockItems() const { return m_blocks; }
    WireItem* wireItem(const core::model::Connection& c) const;
    std::optional<PortEnd> portEnd(const core::model::PortRef& ref) const;
    int wireCountAt(const core::model::PortRef& ref) const;

    QStringList selectedBlockNames() const;
    std::vector<core::model::Connection> selectedConnections() const;
    void selectBlocks(const QStringList& names);
    void setErrorBlocks(const QSet<QString>& names);
    const QString& lastStatus() const { return m_lastStatus; }
    // while a wire is dragged: its preview, and whether the port under the mouse would refuse it
    const QGraphicsPathItem* wirePreview() const { return m_drag ? m_drag->preview : nullptr; }
    bool wireDragRefused() const { return m_drag && m_drag->refused; }

    // edits (scene_commands.cpp); each is one undo step, refusals go to statusMessage
    bool addBlock(const QString& typeId, QPointF scenePos);
    void deleteSelection();
    void rotateSelection(int degrees);
    void flipSelection();
    QMimeData* copySelection() const;   // nullptr if nothing is selected
    void cutSelection(QMimeData** copied);
    bool paste(const QMimeData* data, std::optional<QPointF> at = std::nullopt);
    void duplicateSelection();
    bool renameBlock(const QString& from, const QString& to);
    // placement (scene_placement.cpp): a block's rectangle with ports and label, scene coordinates
    QRectF footprint(const core::model::BlockSpec& spec) const;
    // the offset nearest `preferred` (a multiple of the grid from it) where no rect overlaps a block
    QPointF freeOffset(const std::vector<QRectF>& rects, QPointF preferred) const;
    // Edit > Arrange Blocks: every block of the level laid out anew (arrange.hpp), one undo step;
    // false if that changes nothing
    bool arrangeLevel();
    void beginRename(const QString& name);   // inline editor on the label (F2, double-click)
    RenameEditor* renameEditor() const { return m_renameEditor; }
    void clearRenameEditor() { m_renameEditor = nullptr; }

    // called by BlockItem when it moves (during a drag, before the Move edit)
    void blockItemMoved(const BlockItem& item);
    // final wire routes (A*) are laid when nothing is being dragged
    void scheduleRoute(WireItem& wire);
    void liftRoute(WireItem& wire);
    // lays scheduled routes: all of them, or as many as fit in budgetMs (the rest on the next tick)
    void routePending(int budgetMs = -1);
    bool routesPending() const { return !m_pendingRoutes.empty(); }

Q_SIGNALS:
    void statusMessage(const QString& message);
    void blockActivated(const QString& name);   // double-click on a body: parameters
    void levelChanged();

protected:
    void drawBackground(QPainter* painter, const QRectF& rect) override;
    void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
    void mouseMoveEvent(QGraphicsSceneMouseEvent* event) override;
    void mouseReleaseEvent(QGraphicsSceneMouseEvent* event) override;
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;

private:
    struct WireDrag {
        core::model::PortRef from;
        PortEnd fromEnd;
        std::optional<core::model::Connection> detaching;   // dragging an existing wire's end away
        QGraphicsPathItem* preview = nullptr;
        BlockItem* hot = nullptr;
        bool refused = false;   // the port under the mouse would refuse this wire
    };

    void rebuild();
    void followModel();   // after a change: leave a level that no longer exists
    const core::model::Model* resolve(const QStringList& path, QString* definition = nullptr) const;
    void addBlockItem(const QString& name);
    void removeBlockItem(const QString& name);
    void renameBlockItem(const QString& from, const QString& to);
    void addWire(const core::model::Connection& c);
    void removeWire(const core::model::Connection& c);
    void updateWiresOf(const QString& block);
    void updateWiresAt(const core::model::PortRef& ref);
    void status(const QString& message);
    bool occupied(const QRectF& rect) const;
    // scene_placement.cpp: the blocks named, laid out with the top left corner at origin
    core::model::EditBatch arrangement(const QStringList& names, QPointF origin) const;
    void placeStacked();   // blocks that share a position (a file that gives none), on rebuild

    // scene_input.cpp
    std::optional<std::pair<BlockItem*, const PortShape*>> portUnder(QPointF scenePos) const;
    bool startWireDrag(QGraphicsSceneMouseEvent* event);
    void updateWireDrag(QPointF scenePos);
    void finishWireDrag(QPointF scenePos);
    void commitMoves();
    std::optional<QString> refusal(const core::model::PortRef& a, const core::model::PortRef& b,
                                   const std::optional<core::model::Connection>& ignoring) const;

    Document& m_doc;
    QStringList m_level;
    bool m_levelDirty = false;   // the definition shown changed: rebuild
    QHash<QString, BlockItem*> m_blocks;
    QHash<QString, QList<WireItem*>> m_blockWires;   // block name -> wires touching it
    QHash<QString, int> m_portWires;                 // "block.port" -> wire count
    QSet<QString> m_errorBlocks;
    QHash<BlockItem*, QPointF> m_pressPositions;   // selection at mouse press, for the Move edit
    std::optional<WireDrag> m_drag;
    Router m_router;
    std::vector<WireItem*> m_pendingRoutes;
    QTimer* m_routeTimer;
    bool m_mouseDown = false;
    RenameEditor* m_renameEditor = nullptr;
    QString m_lastStatus;
    bool m_building = false;
    mutable int m_pasteCount = 0;   // consecutive pastes of one copy move further along
};

}   // namespace endstop::gui
