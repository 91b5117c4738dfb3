// SPDX-License-Identifier: GPL-3.0-or-later
// One row of a ParamForm (private to param_form*.cpp): its descriptor, widgets and state.
#pragma once

#include "gui/param_form.hpp"

#include <QString>

#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;

namespace endstop::gui {

class ExpressionCompleter;

struct ParamForm::Field {
    core::ParamDesc desc;
    QLabel* label = nullptr;
    QLineEdit* line = nullptr;
    QComboBox* choice = nullptr;
    QComboBox* unit = nullptr;
    QLabel* error = nullptr;
    QLabel* resolved = nullptr;   // "= 20000 N/m" under an expression
    ExpressionCompleter* completer = nullptr;
    QLabel* choiceNote = nullptr;   // Properties dock: the whole choice when the box cuts it
    std::vector<core::Unit> units;
    QString shownUnit;   // the display unit the entry is written in
    QString shownText;   // what show() wrote, to tell an untouched entry
    QString parseError, crossError;
    bool crossIsWarning = false;
    bool visible = true;
    QWidget* page = nullptr;   // the tab or group box holding the row
};

}   // namespace endstop::gui
