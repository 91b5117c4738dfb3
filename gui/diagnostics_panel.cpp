// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/diagnostics_panel.hpp"

#include "core/simulation/simulate.hpp"
#include "gui/document.hpp"
#include "gui/help_text.hpp"

#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QSet>
#include <QStyle>
#include <QThreadPool>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace endstop::gui {

DiagnosticsPanel::DiagnosticsPanel(Document& doc, QWidget* parent)
    : QWidget(parent),
      m_doc(doc),
      m_list(new QTreeWidget(this)),
      m_summary(new QLabel(this)),
      m_details(new QLabel(this)),
      m_debounce(new QTimer(this)) {
    m_list->setColumnCount(3);
    m_list->setHeaderLabels({tr("Severity"), tr("Where"), tr("Message")});
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(false);
    m_list->setWordWrap(true);   // long messages wrap in their column instead of being cut
    m_list->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_list->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_list->header()->setStretchLastSection(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_summary);
    layout->addWidget(m_list, 1);
    // the whole message of the selected entry, wrapped: the list's column cuts long ones
    m_details->setObjectName(QStringLiteral("diagnosticDetails"));
    m_details->setWordWrap(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setVisible(false);
    layout->addWidget(m_details);
    connect(m_list, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        m_details->setText(item ? item->toolTip(2) : QString());
        m_details->setVisible(item != nullptr);
    });
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(150);
    connect(m_debounce, &QTimer::timeout, this, &DiagnosticsPanel::start);
    connect(&doc, &Document::structureChanged, this, &DiagnosticsPanel::schedule);
    connect(m_list, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        const QString block = item->data(1, Qt::UserRole).toString();
        if (!block.isEmpty()) Q_EMIT blockRequested(block);
    });
    schedule();
}

void DiagnosticsPanel::schedule() {
    ++m_generation;
    m_debounce->start();
}

void DiagnosticsPanel::validateNow() {
    m_debounce->stop();
    start();
}

void DiagnosticsPanel::start() {
    if (m_running) {   // one worker at a time; the newest model is validated when it is done
        m_again = true;
        return;
    }
    m_running = true;
    ++m_started;
    m_summary->setText(tr("Checking\u2026"));
    const int generation = m_generation;
    QPointer<DiagnosticsPanel> self(this);
    QThreadPool::globalInstance()->start([self, generation, model = m_doc.model(), &registry = m_doc.registry()] {
        core::Diagnostics d = core::simulation::validateModel(model, registry);
        QMetaObject::invokeMethod(
            qApp,
            [self, generation, d = std::move(d)]() mutable {
                if (self) self->show(generation, std::move(d));
            },
            Qt::QueuedConnection);
    });
}

void DiagnosticsPanel::show(int generation, core::Diagnostics diagnostics) {
    m_running = false;
    if (m_again || generation != m_generation) {
        m_again = false;
        start();
        return;
    }
    m_diagnostics = std::move(diagnostics);
    render();
}

void DiagnosticsPanel::setRunDiagnostics(const core::Diagnostics& diagnostics) {
    m_runDiagnostics = diagnostics;
    m_finishedRun.clear();
    render();
}

void DiagnosticsPanel::setRunFinished(const QString& run) {
    m_runDiagnostics.clear();
    m_finishedRun = run;
    render();
}

QTreeWidgetItem* DiagnosticsPanel::makeItem(const core::Diagnostic& d, bool fromRun) const {
    const QString block = QString::fromStdString(d.block);
    QString where = block;
    if (!d.port.empty()) where += QStringLiteral(".") + QString::fromStdString(d.port);
    if (!d.param.empty())
        where += (where.isEmpty() ? QString() : QStringLiteral(" ")) + QString::fromStdString(d.param);
    QString message = QString::fromStdString(d.message);
    if (!d.hint.empty()) message += QStringLiteral(" (") + QString::fromStdString(d.hint) + QStringLiteral(")");
    QString severity = QString::fromLatin1(core::toString(d.severity));
    if (fromRun) severity = tr("run %1").arg(severity);
    auto* item = new QTreeWidgetItem({severity, where, message});
    const auto icon = d.severity == core::Severity::Error     ? QStyle::SP_MessageBoxCritical
                      : d.severity == core::Severity::Warning ? QStyle::SP_MessageBoxWarning
                                                              : QStyle::SP_MessageBoxInformation;
    item->setIcon(0, style()->standardIcon(icon));
    item->setData(1, Qt::UserRole, block);
    item->setToolTip(2, QString::fromStdString(d.text()));
    return item;
}

void DiagnosticsPanel::render() {
    m_list->clear();
    m_details->setVisible(false);
    QSet<QString> errorBlocks;
    int errors = 0, warnings = 0, runErrors = 0;
    QList<QTreeWidgetItem*> items;
    const auto same = [](const core::Diagnostic& a, const core::Diagnostic& b) {
        return a.severity == b.severity && a.block == b.block && a.port == b.port && a.param == b.param &&
               a.message == b.message;
    };
    for (const core::Diagnostic& d : m_runDiagnostics) {
        // a structural error the run stopped at is also what validation says: listed once
        if (std::any_of(m_diagnostics.begin(), m_diagnostics.end(),
                        [&](const core::Diagnostic& v) { return same(d, v); }))
            continue;
        items << makeItem(d, true);
        if (d.severity == core::Severity::Error) ++runErrors;
        if (d.severity == core::Severity::Error && !d.block.empty())
            errorBlocks.insert(QString::fromStdString(d.block));
    }
    for (const core::Diagnostic& d : m_diagnostics) {
        items << makeItem(d, false);
        if (d.severity == core::Severity::Error) {
            ++errors;
            if (!d.block.empty()) errorBlocks.insert(QString::fromStdString(d.block));
        }
        if (d.severity == core::Severity::Warning) ++warnings;
    }
    m_list->addTopLevelItems(items);
    const int infos = static_cast<int>(m_diagnostics.size()) - errors - warnings;
    QString summary;
    if (errors == 0 && warnings == 0 && !m_finishedRun.isEmpty())
        summary = infos == 0
                      ? tr("%1 finished without problems.").arg(m_finishedRun)
                      : tr("%1 finished without problems (%2).").arg(m_finishedRun, countOf(infos, "note", "notes"));
    else if (errors == 0 && warnings == 0)
        summary =
            infos == 0 ? tr("Ready to simulate.") : tr("Ready to simulate (%1).").arg(countOf(infos, "note", "notes"));
    else
        summary = QStringLiteral("%1, %2, %3")
                      .arg(countOf(errors, "error", "errors"), countOf(warnings, "warning", "warnings"),
                           countOf(infos, "note", "notes"));
    // after a failed run the counts are the model check's, said so beside the run's own errors
    // (they read "0 errors" under a run error before)
    if (!m_runDiagnostics.empty()) {
        const QString check = errors == 0 && warnings == 0 && infos == 0
                                  ? tr("no problems")
                                  : QStringLiteral("%1, %2, %3")
                                        .arg(countOf(errors, "error", "errors"), countOf(warnings, "warning", "warnings"),
                                             countOf(infos, "note", "notes"));
        const QString why = runErrors == 1 ? tr("the run error below says why")
                                           : tr("the errors below say why");
        summary = tr("The last run failed (%1). Model check: %2.").arg(why, check);
    }
    m_summary->setText(summary);
    Q_EMIT validated(errorBlocks);
}

}   // namespace endstop::gui
