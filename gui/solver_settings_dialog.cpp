// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/solver_settings_dialog.hpp"

#include "core/errors.hpp"
#include "core/simulation/simulate.hpp"
#include "core/units/unit.hpp"
#include "gui/document.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

namespace endstop::gui {

namespace {
QString number(double v) { return QString::fromStdString(core::formatNumber(v)); }
}   // namespace

std::optional<double> SolverSettingsDialog::parseTime(const QString& text) {
    try {
        return core::parseSI(text.trimmed().toStdString(), core::Dimension::time());
    } catch (const core::UnitError&) {
        return std::nullopt;
    }
}

SolverSettingsDialog::SolverSettingsDialog(Document& doc, QWidget* parent)
    : QDialog(parent),
      m_doc(doc),
      m_stop(new QLineEdit(this)),
      m_rtol(new QLineEdit(this)),
      m_atol(new QLineEdit(this)),
      m_maxStep(new QLineEdit(this)),
      m_interval(new QLineEdit(this)),
      m_solver(new QComboBox(this)),
      m_reduce(new QCheckBox(tr("Reduce the network before solving"), this)),
      m_error(new QLabel(this)) {
    setWindowTitle(tr("Solver settings"));
    const core::model::SimulationSettings& s = doc.model().simulation();
    m_stop->setObjectName(QStringLiteral("stop_time"));
    m_rtol->setObjectName(QStringLiteral("relative_tolerance"));
    m_atol->setObjectName(QStringLiteral("absolute_tolerance"));
    m_maxStep->setObjectName(QStringLiteral("max_step"));
    m_interval->setObjectName(QStringLiteral("output_interval"));
    m_stop->setText(number(s.stopTime) + QStringLiteral(" s"));
    m_rtol->setText(number(s.relativeTolerance));
    m_atol->setText(number(s.absoluteTolerance));
    m_maxStep->setText(number(s.maxStep) + QStringLiteral(" s"));
    m_interval->setText(number(s.outputInterval) + QStringLiteral(" s"));
    m_maxStep->setToolTip(tr("0: no limit"));
    m_interval->setToolTip(tr("0: a row at every solver step (and around every event)"));
    // each item's data is the solver's name, as in the file
    const auto name = [](core::model::LinearSolver l) { return QString::fromLatin1(core::model::toString(l)); };
    m_solver->addItem(tr("auto (dense below 40 unknowns, else KLU)"), name(core::model::LinearSolver::Auto));
    m_solver->addItem(tr("dense"), name(core::model::LinearSolver::Dense));
    m_solver->addItem(tr("KLU (sparse)"), name(core::model::LinearSolver::Klu));
    m_solver->setCurrentIndex(std::max(0, m_solver->findData(name(s.linearSolver))));
    m_reduce->setObjectName(QStringLiteral("reduce"));
    m_reduce->setChecked(s.reduce);
    m_reduce->setToolTip(
        tr("On by default: aliases, explicit variables and running integrals leave the solver's "
           "unknowns; every variable is still recorded. Much faster on large networks. Untick it "
           "to solve the network as drawn, with every variable in the solver's error test "
           "(docs/engine.md, \"Reduction\")."));
    m_error->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_error->setWordWrap(true);

    auto* form = new QFormLayout;
    // each field's reason sits right under it
    const auto row = [this, form](const QString& label, QLineEdit* edit) {
        auto* box = new QWidget(this);
        auto* v = new QVBoxLayout(box);
        v->setContentsMargins(0, 0, 0, 0);
        v->setSpacing(1);
        auto* error = new QLabel(box);
        error->setObjectName(edit->objectName() + QStringLiteral("_error"));
        error->setStyleSheet(QStringLiteral("color: #b00020;"));
        error->setWordWrap(true);
        error->setVisible(false);
        v->addWidget(edit);
        v->addWidget(error);
        m_fieldErrors.insert(edit->objectName(), error);
        form->addRow(label, box);
    };
    row(tr("Stop time"), m_stop);
    row(tr("Relative tolerance"), m_rtol);
    row(tr("Absolute tolerance"), m_atol);
    row(tr("Maximum step"), m_maxStep);
    row(tr("Output interval"), m_interval);
    form->addRow(tr("Linear solver"), m_solver);
    form->addRow(QString(), m_reduce);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(buttons);
}

QLineEdit* SolverSettingsDialog::field(const QString& key) const { return findChild<QLineEdit*>(key); }

QLabel* SolverSettingsDialog::fieldError(const QString& key) const { return m_fieldErrors.value(key); }

void SolverSettingsDialog::showFieldError(const QString& key, const QString& message) {
    if (QLabel* l = m_fieldErrors.value(key)) {
        l->setText(message);
        l->setVisible(!message.isEmpty());
    }
}

std::optional<core::model::SimulationSettings> SolverSettingsDialog::settings() {
    core::model::SimulationSettings s = m_doc.model().simulation();
    bool ok = true;
    for (auto it = m_fieldErrors.cbegin(); it != m_fieldErrors.cend(); ++it) showFieldError(it.key(), {});
    const auto time = [&](QLineEdit* e, double& out) {
        if (const auto v = parseTime(e->text()))
            out = *v;
        else
            showFieldError(e->objectName(), tr("Enter a time, e.g. 2 or 500 ms")), ok = false;
    };
    const auto plain = [&](QLineEdit* e, double& out) {
        bool good = false;
        const double v = QLocale::c().toDouble(e->text().trimmed(), &good);
        if (good)
            out = v;
        else
            showFieldError(e->objectName(), tr("Enter a number, e.g. 1e-6")), ok = false;
    };
    time(m_stop, s.stopTime);
    plain(m_rtol, s.relativeTolerance);
    plain(m_atol, s.absoluteTolerance);
    time(m_maxStep, s.maxStep);
    time(m_interval, s.outputInterval);
    s.linearSolver = core::model::parseLinearSolver(m_solver->currentData().toString().toStdString())
                         .value_or(core::model::LinearSolver::Auto);
    s.reduce = m_reduce->isChecked();
    if (!ok) {
        m_error->clear();
        return std::nullopt;
    }
    try {
        core::simulation::resolveSettings(s, {});
    } catch (const core::Error& e) {
        m_error->setText(QString::fromStdString(e.what()));
        for (const core::Diagnostic& d : e.diagnostics()) {
            const QString key = QString::fromStdString(d.param);
            if (!m_fieldErrors.contains(key)) continue;
            const QString prefix = QStringLiteral("simulation setting %1 ").arg(key);
            const QString message = QString::fromStdString(d.message);
            showFieldError(key, message.startsWith(prefix) ? message.mid(prefix.size()) : message);
            m_error->clear();   // said next to the field
        }
        return std::nullopt;
    }
    m_error->clear();
    return s;
}

bool SolverSettingsDialog::apply() {
    const auto s = settings();
    if (!s) return false;
    if (*s == m_doc.model().simulation()) return true;
    if (const auto error = m_doc.apply(core::model::SetSimulation{*s}, tr("Solver settings"))) {
        m_error->setText(*error);
        return false;
    }
    return true;
}

void SolverSettingsDialog::accept() {
    if (apply()) QDialog::accept();
}

}   // namespace endstop::gui
