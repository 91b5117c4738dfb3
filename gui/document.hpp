// SPDX-License-Identifier: GPL-3.0-or-later
// Document: the open project. Owns the core Model, its file path and the one QUndoStack whose
// commands wrap core Edit values (apply() returns the inverse, so undo is data). Every change goes
// through apply(); the fine-grained signals tell views what changed, and structureChanged() fires
// only for non-cosmetic edits, so moving a block never re-validates anything.
#pragma once

#include "core/blockapi/registry.hpp"
#include "core/model/model.hpp"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>
#include <string>

class QUndoStack;

namespace endstop::gui {

class Document : public QObject {
    Q_OBJECT
public:
    explicit Document(const core::Registry& registry, QObject* parent = nullptr);
    ~Document() override;

    const core::model::Model& model() const { return m_model; }
    const core::Registry& registry() const { return m_registry; }
    QUndoStack* undoStack() const { return m_undo; }

    // Applies an edit as one undo step. Returns the error message (and changes nothing) if the
    // model refuses it.
    std::optional<QString> apply(const core::model::Edit& edit, const QString& label);

    // Applies a layout edit outside the undo history and without signals, leaving the document as
    // clean as it was: the places the canvas gives blocks that a file gives none (it updates its
    // items itself). Returns the error message if the model refuses it.
    std::optional<QString> settle(const core::model::Edit& edit);

    // Replaces the whole model (New, Open, recovery): clears the undo history.
    void reset(core::model::Model model, const QString& path);
    const QString& path() const { return m_path; }
    void setPath(const QString& path);
    QString displayName() const;   // file name or "untitled"
    bool isDirty() const;
    void markClean();
    void markDirty();   // a recovered document has unsaved changes

    // The parameter values the block holds, expressions evaluated in the model's scope (one that
    // does not evaluate is left out), migrated to the registered typeVersion (absent keys take
    // their defaults when a Block is created from them).
    core::ParamValues currentParams(const core::model::BlockSpec& spec) const;
    // The block as its current values configure it (its present ports, its descriptors), or
    // nullopt for an unknown type or values it refuses.
    std::optional<core::BlockDescription> describe(const core::model::BlockSpec& spec) const;

Q_SIGNALS:
    void modelReset();
    void blockAdded(const QString& name);
    void blockRemoved(const QString& name);   // its connections are gone too
    void blockRenamed(const QString& from, const QString& to);
    void blockParamsChanged(const QString& name);   // ports may have changed
    void blockUiChanged(const QString& name);       // position, rotation, flip, display units
    void connectionAdded(const core::model::Connection& c);
    void connectionRemoved(const core::model::Connection& c);
    void simulationChanged();
    void plotsChanged();
    void parametersChanged(const QString& name);   // a model parameter added, changed or removed
    void subsystemChanged(const QString& name);    // a definition added, removed or edited inside
    void structureChanged();                       // after any non-cosmetic change (validation, results)
    void pathChanged();
    void dirtyChanged(bool dirty);

private:
    friend class EditCommand;
    void applied(const core::model::Edit& edit);   // emits the signals for an edit just applied
    void dispatch(const core::model::Edit& edit);

    const core::Registry& m_registry;
    core::model::Model m_model;
    QString m_path;
    QUndoStack* m_undo = nullptr;
    bool m_forcedDirty = false;
};

}   // namespace endstop::gui
