// SPDX-License-Identifier: GPL-3.0-or-later
// TuningRow: one pinned numeric parameter in the tuning panel: a slider over an editable range
// (linear or logarithmic) and a spin box, both in the parameter's display unit. Moving the slider
// reports every position (tuned); releasing it, a keyboard step or a typed value commits (committed).
// Its ⋯ menu reduces the row to its spin box or puts the range back around the value.
#pragma once

#include "core/blockapi/descriptor.hpp"

#include <QDoubleSpinBox>
#include <QWidget>

class QAction;
class QCheckBox;
class QLabel;
class QLineEdit;
class QSlider;
class QToolButton;

namespace endstop::gui {

// A spin box that shows any magnitude (1e-4, 1e6) with 6 significant digits; steps are 1 % of the
// slider's range (a factor in log scale).
class ValueSpinBox : public QDoubleSpinBox {
    Q_OBJECT
public:
    using QDoubleSpinBox::QDoubleSpinBox;
    QString textFromValue(double value) const override;
    double valueFromText(const QString& text) const override;
    QValidator::State validate(QString& text, int& pos) const override;
    void stepBy(int steps) override;
    bool logScale = false;
};

class TuningRow : public QWidget {
    Q_OBJECT
public:
    static constexpr int kSteps = 1000;

    TuningRow(const QString& block, const core::ParamDesc& desc, const core::Unit& display, double siValue,
              QWidget* parent = nullptr);

    const QString& block() const { return m_block; }
    const QString& key() const { return m_key; }
    // "stop1.upper_stiffness"; a model parameter's name alone (its block is empty)
    QString target() const { return m_block.isEmpty() ? m_key : m_block + '.' + m_key; }
    void setBlock(const QString& block);
    const core::ParamDesc& desc() const { return m_desc; }
    const core::Unit& unit() const { return m_unit; }

    double value() const;                                             // SI
    void setValue(double siValue);                                    // from the model; emits nothing
    void setRange(double minShown, double maxShown, bool logScale);   // display units
    double rangeMin() const { return m_min; }
    double rangeMax() const { return m_max; }
    bool logScale() const { return m_log; }
    void setSpinOnly(bool spinOnly);
    bool sliderDown() const;
    QSlider* slider() const { return m_slider; }
    ValueSpinBox* spinBox() const { return m_spin; }
    QLineEdit* minEdit() const { return m_minEdit; }
    QLineEdit* maxEdit() const { return m_maxEdit; }
    QCheckBox* logBox() const { return m_logBox; }
    QAction* spinOnlyAction() const { return m_spinOnly; }
    bool spinOnly() const;
    void setError(const QString& reason);   // shown on the row; empty clears it

Q_SIGNALS:
    void tuned(double siValue, bool firstOfGesture);   // re-run with this value
    void committed(double siValue);                    // keep it (undo stack)
    void removeRequested();

private:
    double fromSlider(int position) const;   // display units
    int toSlider(double shown) const;
    void onSlider(int position);
    void onSpin();
    void readRange();
    void defaultRange(double shown);

    QString m_block, m_key;
    core::ParamDesc m_desc;
    core::Unit m_unit;
    double m_min = 0.0, m_max = 1.0;
    bool m_log = false;
    bool m_gestureStarted = false;
    double m_lastSi = 0.0;   // the value last set or committed
    QLabel* m_name;
    QSlider* m_slider;
    ValueSpinBox* m_spin;
    QLineEdit* m_minEdit;
    QLineEdit* m_maxEdit;
    QCheckBox* m_logBox;
    QToolButton* m_mode;
    QAction* m_spinOnly = nullptr;
    QWidget* m_rangeRow;
};

}   // namespace endstop::gui
