// SPDX-License-Identifier: GPL-3.0-or-later
// Export: the plot as PNG or PDF (as drawn, without the cursor and the selection), the data as CSV (the current
// run's full rows, not the drawn envelope: time and every plotted signal in the unit shown,
// round-trip precision; in SI it is endstop-batch's CSV).
#include "core/io/output_file.hpp"
#include "core/errors.hpp"
#include "core/units/unit.hpp"
#include "gui/plot_panel.hpp"
#include "gui/run_controller.hpp"
#include "gui/start_directory.hpp"
#include "gui/subplot.hpp"

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>

namespace endstop::gui {

bool PlotPanel::exportImage(const QString& path, int width, int height) {
    hideCursor();
    for (const auto& s : m_subplots) s->setSelected(false);   // the selection is not part of the picture
    m_plot->replot(QCustomPlot::rpImmediateRefresh);          // envelopes for the current ranges
    const bool ok = QFileInfo(path).suffix().compare(QStringLiteral("pdf"), Qt::CaseInsensitive) == 0
                        ? m_plot->savePdf(path, width, height)
                        : m_plot->savePng(path, width, height);
    selectSubplot(m_selected);
    return ok;
}

bool PlotPanel::exportCsv(const QString& path) const {
    const RunSeries* run = m_runs.current();
    if (!run && !m_runs.previous().empty()) run = m_runs.previous().front().get();
    if (!run) return false;
    const core::simulation::ResultBuffer& buffer = run->run().results();
    std::vector<std::string> names, headers;
    std::vector<int> columns;
    std::vector<core::Unit> units;
    for (const auto& s : m_subplots)
        for (const std::string& sig : s->signalNames()) {
            const int c = buffer.columnIndex(sig);
            if (c < 0 || std::find(names.begin(), names.end(), sig) != names.end()) continue;
            const std::optional<SignalInfo> info = shownSignal(sig);
            const core::Unit unit = info ? info->display : core::Unit{};
            const bool si = !info || unit.scale == 1.0;   // the batch tool's header and numbers
            names.push_back(sig);
            headers.push_back(si ? sig : sig + " [" + unit.display() + "]");
            columns.push_back(c);
            units.push_back(si ? core::Unit{} : unit);
        }
    const std::size_t rows = buffer.rows();
    std::vector<std::vector<double>> table(columns.size() + 1);
    buffer.read(core::simulation::ResultBuffer::kTime, 0, rows, table[0]);
    for (std::size_t i = 0; i < columns.size(); ++i) {
        buffer.read(columns[i], 0, rows, table[i + 1]);
        if (units[i].scale != 1.0)
            for (double& v : table[i + 1]) v = units[i].fromSI(v);
    }

    // every write is checked and the file replaces the old one only when whole (docs/reliability.md)
    try {
        core::io::OutputFile file(path.toStdString());
        std::string text = "time";
        for (const std::string& h : headers) text += ',' + h;
        text += '\n';
        for (std::size_t r = 0; r < rows; ++r) {
            for (std::size_t c = 0; c < table.size(); ++c) {
                if (c > 0) text += ',';
                text += core::formatNumber(table[c][r]);
            }
            text += '\n';
            if (text.size() > (1u << 20)) {
                file.write(text);
                text.clear();
            }
        }
        file.write(text);
        file.commit();
    } catch (const core::IoError&) {
        return false;
    }
    return true;
}

void PlotPanel::exportDialog(const QString& kind) {
    const QString filter = kind == QLatin1String("csv")   ? tr("CSV files (*.csv)")
                           : kind == QLatin1String("pdf") ? tr("PDF files (*.pdf)")
                                                          : tr("PNG images (*.png)");
    const QString dir = startDirectory(QStringLiteral("lastExportDirectory"));
    QString path = QFileDialog::getSaveFileName(this, tr("Export"), dir + QStringLiteral("/plot.") + kind, filter);
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += '.' + kind;
    QSettings().setValue(QStringLiteral("lastExportDirectory"), QFileInfo(path).absolutePath());
    const bool ok = kind == QLatin1String("csv") ? exportCsv(path) : exportImage(path);
    if (ok)
        Q_EMIT statusMessage(tr("Exported %1").arg(path));
    else
        QMessageBox::warning(this, tr("Export"), tr("Could not write %1.").arg(path));
}

}   // namespace endstop::gui
