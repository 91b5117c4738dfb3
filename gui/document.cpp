// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/document.hpp"

#include "core/model/flatten.hpp"

#include "core/model/errors.hpp"

#include <QFileInfo>
#include <QUndoCommand>
#include <QUndoStack>

namespace endstop::gui {

namespace {
template <class... F> struct Overload : F... { using F::operator()...; };
template <class... F> Overload(F...) -> Overload<F...>;
}  // namespace

// One undo step: an edit and its inverse. The edit was applied before the command was pushed, so
// the first redo() (called by QUndoStack::push) does nothing.
class EditCommand final : public QUndoCommand {
public:
    EditCommand(Document& doc, core::Edit redoEdit, core::Edit undoEdit, const QString& label)
        : QUndoCommand(label), m_doc(doc), m_redo(std::move(redoEdit)), m_undo(std::move(undoEdit)) {}

    void redo() override {
        if (m_first) { m_first = false; return; }
        m_undo = m_doc.m_model.apply(m_redo);
        m_doc.applied(m_redo);
    }
    void undo() override {
        m_redo = m_doc.m_model.apply(m_undo);
        m_doc.applied(m_undo);
    }

private:
    Document& m_doc;
    core::Edit m_redo, m_undo;
    bool m_first = true;
};

Document::Document(const core::Registry& registry, QObject* parent)
    : QObject(parent), m_registry(registry), m_undo(new QUndoStack(this)) {
    connect(m_undo, &QUndoStack::cleanChanged, this, [this](bool clean) { Q_EMIT dirtyChanged(!clean || m_forcedDirty); });
}

Document::~Document() = default;

std::optional<QString> Document::apply(const core::Edit& edit, const QString& label) {
    core::Edit inverse = core::Edit(core::EditBatch{});
    try {
        inverse = m_model.apply(edit);
    } catch (const core::Error& e) {
        return QString::fromStdString(e.what());
    }
    applied(edit);
    m_undo->push(new EditCommand(*this, edit, std::move(inverse), label));
    return std::nullopt;
}

void Document::applied(const core::Edit& edit) {
    dispatch(edit);
    if (!edit.cosmetic()) Q_EMIT structureChanged();
}

void Document::dispatch(const core::Edit& edit) {
    std::visit(Overload{
                   [&](const core::AddBlock& e) { Q_EMIT blockAdded(QString::fromStdString(e.block.name)); },
                   [&](const core::RemoveBlock& e) { Q_EMIT blockRemoved(QString::fromStdString(e.name)); },
                   [&](const core::Connect& e) { Q_EMIT connectionAdded(e.connection); },
                   [&](const core::Disconnect& e) { Q_EMIT connectionRemoved(e.connection); },
                   [&](const core::SetParameter& e) { Q_EMIT blockParamsChanged(QString::fromStdString(e.block)); },
                   [&](const core::RenameBlock& e) {
                       Q_EMIT blockRenamed(QString::fromStdString(e.from), QString::fromStdString(e.to));
                   },
                   [&](const core::MoveBlock& e) { Q_EMIT blockUiChanged(QString::fromStdString(e.name)); },
                   [&](const core::SetBlockUi& e) { Q_EMIT blockUiChanged(QString::fromStdString(e.name)); },
                   [&](const core::SetSimulation&) { Q_EMIT simulationChanged(); },
                   [&](const core::SetPlots&) { Q_EMIT plotsChanged(); },
                   [&](const core::EditBatch& b) {
                       for (const core::Edit& e : b.edits) dispatch(e);
                   },
                   [&](const core::SetModelParameter& e) { Q_EMIT parametersChanged(QString::fromStdString(e.name)); },
                   [&](const core::AddSubsystem& e) { Q_EMIT subsystemChanged(QString::fromStdString(e.def->name)); },
                   [&](const core::RemoveSubsystem& e) { Q_EMIT subsystemChanged(QString::fromStdString(e.name)); },
                   [&](const core::InSubsystem& e) { Q_EMIT subsystemChanged(QString::fromStdString(e.name)); },
                   [&](const core::SetBlockType& e) { Q_EMIT blockParamsChanged(QString::fromStdString(e.name)); },
               },
               edit.value);
}

void Document::reset(core::Model model, const QString& path) {
    m_model = std::move(model);
    m_forcedDirty = false;
    m_undo->clear();
    m_undo->setClean();
    m_path = path;
    Q_EMIT modelReset();
    Q_EMIT structureChanged();
    Q_EMIT pathChanged();
    Q_EMIT dirtyChanged(false);
}

void Document::setPath(const QString& path) {
    m_path = path;
    Q_EMIT pathChanged();
}

QString Document::displayName() const { return m_path.isEmpty() ? QStringLiteral("untitled") : QFileInfo(m_path).fileName(); }

bool Document::isDirty() const { return m_forcedDirty || !m_undo->isClean(); }

void Document::markClean() {
    m_forcedDirty = false;
    m_undo->setClean();
    Q_EMIT dirtyChanged(false);
}

void Document::markDirty() {
    m_forcedDirty = true;
    Q_EMIT dirtyChanged(true);
}

core::ParamValues Document::currentParams(const core::BlockSpec& spec) const {
    const core::BlockType* type = m_registry.find(spec.type);
    if (!type) return {};
    core::BlockSpec evaluated = spec;
    evaluated.params = core::evaluatedParams(m_model, spec, m_registry);
    return core::currentParams(evaluated, m_registry);
}

std::optional<core::BlockDescription> Document::describe(const core::BlockSpec& spec) const {
    if (!m_registry.find(spec.type)) return std::nullopt;
    try {
        return m_registry.describe(spec.type, currentParams(spec));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace endstop::gui
