// SPDX-License-Identifier: GPL-3.0-or-later
// SolverSettingsDialog: the model's simulation settings (stop time, tolerances, maximum step,
// output interval, linear solver, the reduction). Times accept units ("500 ms"); the settings are checked by the
// core before OK closes the dialog, and OK applies them as one SetSimulation edit (undo stack).
#pragma once

#include "core/model/model.hpp"

#include <QDialog>
#include <QHash>

#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace endstop::gui {

class Document;

class SolverSettingsDialog : public QDialog {
    Q_OBJECT
public:
    explicit SolverSettingsDialog(Document& doc, QWidget* parent = nullptr);

    QLineEdit* field(const QString& key) const;   // "stop_time", "relative_tolerance", ...
    QComboBox* linearSolver() const { return m_solver; }
    QCheckBox* reduce() const { return m_reduce; }
    QLabel* errorLabel() const { return m_error; }               // what no single field explains
    QLabel* fieldError(const QString& key) const;                // the reason under that field
    std::optional<core::model::SimulationSettings> settings();   // nullopt: invalid, reason shown
    bool apply();                                                // OK without closing (tests)

    static std::optional<double> parseTime(const QString& text);   // "2", "2 s", "500 ms"

    void accept() override;

private:
    void showFieldError(const QString& key, const QString& message);   // "" hides it

    Document& m_doc;
    QLineEdit* m_stop;
    QLineEdit* m_rtol;
    QLineEdit* m_atol;
    QLineEdit* m_maxStep;
    QLineEdit* m_interval;
    QComboBox* m_solver;
    QCheckBox* m_reduce;
    QLabel* m_error;
    QHash<QString, QLabel*> m_fieldErrors;
};

}   // namespace endstop::gui
