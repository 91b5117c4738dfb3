// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/tuning_row.hpp"

#include "gui/help_text.hpp"

#include <QCheckBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSignalBlocker>
#include <QSlider>
#include <QToolButton>

#include <algorithm>
#include <cmath>
#include <utility>

namespace endstop::gui {

namespace {
QString number(double v) { return QString::number(v, 'g', 6); }
}   // namespace

// ---- ValueSpinBox -------------------------------------------------------------------------------

QString ValueSpinBox::textFromValue(double value) const { return number(value); }

double ValueSpinBox::valueFromText(const QString& text) const { return QLocale::c().toDouble(text.trimmed()); }

QValidator::State ValueSpinBox::validate(QString& text, int&) const {
    bool ok = false;
    const double v = QLocale::c().toDouble(text.trimmed(), &ok);
    if (!ok) return QValidator::Intermediate;
    return v >= minimum() && v <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
}

void ValueSpinBox::stepBy(int steps) {
    const double span = maximum() - minimum();
    if (logScale && minimum() > 0)
        setValue(value() * std::pow(maximum() / minimum(), steps / 100.0));
    else
        setValue(value() + steps * span / 100.0);
    Q_EMIT editingFinished();
}

// ---- TuningRow ----------------------------------------------------------------------------------

TuningRow::TuningRow(const QString& block, const core::ParamDesc& desc, const core::Unit& display, double siValue,
                     QWidget* parent)
    : QWidget(parent),
      m_block(block),
      m_key(QString::fromStdString(desc.key)),
      m_desc(desc),
      m_unit(display),
      m_name(new QLabel(this)),
      m_slider(new QSlider(Qt::Horizontal, this)),
      m_spin(new ValueSpinBox(this)),
      m_minEdit(new QLineEdit(this)),
      m_maxEdit(new QLineEdit(this)),
      m_logBox(new QCheckBox(tr("log"), this)),
      m_mode(new QToolButton(this)),
      m_rangeRow(new QWidget(this)) {
    setBlock(block);
    m_slider->setRange(0, kSteps);
    m_slider->setPageStep(kSteps / 20);
    m_spin->setDecimals(15);   // text is 'g' format; this only keeps small values from rounding
    m_spin->setKeyboardTracking(false);
    const QString unit = QString::fromStdString(m_unit.symbol);
    m_spin->setSuffix(unit.isEmpty() ? QString() : QStringLiteral(" ") + unit);
    for (QLineEdit* e : {m_minEdit, m_maxEdit}) {
        e->setMaximumWidth(64);
        e->setAlignment(Qt::AlignRight);
    }
    m_minEdit->setToolTip(tr("Lower end of the slider (%1)").arg(unit));
    m_maxEdit->setToolTip(tr("Upper end of the slider (%1)").arg(unit));
    m_logBox->setToolTip(tr("Logarithmic slider (positive ranges)"));
    // the row's options: spin box only, a fresh range around the value, unpin
    auto* menu = new QMenu(m_mode);
    m_spinOnly = menu->addAction(tr("Spin box only"), this, &TuningRow::setSpinOnly);
    m_spinOnly->setCheckable(true);
    menu->addAction(tr("Range around the value"), this, [this] { defaultRange(m_spin->value()); });
    menu->addSeparator();
    menu->addAction(tr("Unpin"), this, &TuningRow::removeRequested);
    m_mode->setText(QStringLiteral("\u22ef"));
    m_mode->setToolTip(tr("Spin box only, range, unpin"));
    m_mode->setMenu(menu);
    m_mode->setPopupMode(QToolButton::InstantPopup);
    m_mode->setAutoRaise(true);
    auto* remove = new QToolButton(this);
    remove->setText(QStringLiteral("\u2715"));
    remove->setToolTip(tr("Unpin"));
    remove->setAutoRaise(true);

    // the slider gets the dock's whole width (more travel per decade); its ends and scale below it
    auto* range = new QGridLayout(m_rangeRow);
    range->setContentsMargins(0, 0, 0, 0);
    range->setVerticalSpacing(0);
    range->addWidget(m_slider, 0, 0, 1, 4);
    range->addWidget(m_minEdit, 1, 0);
    range->addWidget(m_logBox, 1, 2, Qt::AlignRight);
    range->addWidget(m_maxEdit, 1, 3);
    range->setColumnStretch(1, 1);
    m_slider->setToolTip(tr("Drag to tune; arrow keys move one fine step, Page Up/Down a coarse one"));
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(4, 4, 4, 4);
    grid->setVerticalSpacing(2);
    grid->addWidget(m_name, 0, 0);   // a dock's width: name, value, range on three lines
    grid->addWidget(m_mode, 0, 1);
    grid->addWidget(remove, 0, 2);
    grid->addWidget(m_spin, 1, 0, 1, 3);
    grid->addWidget(m_rangeRow, 2, 0, 1, 3);
    grid->setColumnStretch(0, 1);

    defaultRange(m_unit.fromSI(siValue));
    setValue(siValue);
    connect(m_slider, &QSlider::valueChanged, this, &TuningRow::onSlider);
    connect(m_slider, &QSlider::sliderPressed, this, [this] { m_gestureStarted = false; });
    connect(m_slider, &QSlider::sliderReleased, this, [this] {
        m_lastSi = value();
        Q_EMIT committed(value());
    });
    connect(m_spin, &QDoubleSpinBox::editingFinished, this, &TuningRow::onSpin);
    connect(m_minEdit, &QLineEdit::editingFinished, this, &TuningRow::readRange);
    connect(m_maxEdit, &QLineEdit::editingFinished, this, &TuningRow::readRange);
    connect(m_logBox, &QCheckBox::toggled, this, &TuningRow::readRange);
    connect(remove, &QToolButton::clicked, this, &TuningRow::removeRequested);
}

void TuningRow::setBlock(const QString& block) {
    m_block = block;
    m_name->setText(m_block.isEmpty() ? QStringLiteral("<b>%1</b> <i>(model parameter)</i>").arg(m_key)
                                      : QStringLiteral("<b>%1</b>.%2").arg(m_block, m_key));
    m_name->setToolTip(
        plainTooltip(QString::fromStdString(m_desc.label) +
                     (m_desc.help.empty() ? QString() : QStringLiteral("\n") + QString::fromStdString(m_desc.help))));
}

// A range around the value, inside the parameter's limits: a decade either way (log) for a
// positive value, else linear.
void TuningRow::defaultRange(double shown) {
    double lo = 0, hi = 0;
    bool log = false;
    if (shown > 0) {
        lo = shown / 10;
        hi = shown * 10;
        log = true;
    } else if (shown < 0) {
        lo = 2 * shown;
        hi = 0;
    } else {
        lo = -1;
        hi = 1;
    }
    const double limitLo = m_unit.fromSI(m_desc.min), limitHi = m_unit.fromSI(m_desc.max);
    lo = std::max(lo, limitLo);
    hi = std::min(hi, limitHi);
    if (!(hi > lo)) hi = lo + 1;
    setRange(lo, hi, log && lo > 0);
}

void TuningRow::setRange(double minShown, double maxShown, bool logScale) {
    m_min = std::min(minShown, maxShown);
    m_max = std::max(minShown, maxShown);
    m_log = logScale && m_min > 0;
    const double v = m_spin->value();
    {
        const QSignalBlocker b1(m_minEdit), b2(m_maxEdit), b3(m_logBox), b4(m_spin);
        m_minEdit->setText(number(m_min));
        m_maxEdit->setText(number(m_max));
        m_logBox->setChecked(m_log);
        m_spin->setRange(std::min(m_min, v), std::max(m_max, v));
        m_spin->logScale = m_log;
    }
    const QSignalBlocker block(m_slider);
    m_slider->setValue(toSlider(v));
}

void TuningRow::readRange() {
    bool ok1 = false, ok2 = false;
    const double lo = QLocale::c().toDouble(m_minEdit->text(), &ok1),
                 hi = QLocale::c().toDouble(m_maxEdit->text(), &ok2);
    if (ok1 && ok2 && hi != lo)
        setRange(lo, hi, m_logBox->isChecked());
    else
        setRange(m_min, m_max, m_logBox->isChecked());
}

// The value at a slider position, rounded to the slider's resolution there: no more digits than
// one step can tell apart (6920 g, not 6918.30970919 g).
double TuningRow::fromSlider(int position) const {
    const double u = static_cast<double>(position) / kSteps;
    const double v = m_log ? m_min * std::pow(m_max / m_min, u) : m_min + (m_max - m_min) * u;
    if (position == 0 || position == kSteps) return v;   // the ends as typed
    const double step = m_log ? v * (std::pow(m_max / m_min, 1.0 / kSteps) - 1) : (m_max - m_min) / kSteps;
    if (!(step > 0) || !std::isfinite(step)) return v;
    const double quantum = std::pow(10.0, std::floor(std::log10(step)));
    const double r = std::round(v / quantum) * quantum;
    return QString::number(r, 'g', 12).toDouble();   // 6920, not 6920.000000000001
}

int TuningRow::toSlider(double shown) const {
    double u =
        m_log && shown > 0 ? std::log(shown / m_min) / std::log(m_max / m_min) : (shown - m_min) / (m_max - m_min);
    u = std::clamp(std::isfinite(u) ? u : 0.0, 0.0, 1.0);
    return static_cast<int>(std::lround(u * kSteps));
}

double TuningRow::value() const { return m_unit.toSI(m_spin->value()); }

void TuningRow::setValue(double siValue) {
    const double shown = m_unit.fromSI(siValue);
    m_lastSi = siValue;
    const QSignalBlocker b1(m_spin), b2(m_slider);
    m_spin->setRange(std::min(m_min, shown), std::max(m_max, shown));
    m_spin->setValue(shown);
    m_slider->setValue(toSlider(shown));
}

bool TuningRow::sliderDown() const { return m_slider->isSliderDown(); }

void TuningRow::onSlider(int position) {
    const double shown = fromSlider(position);
    {
        const QSignalBlocker block(m_spin);
        m_spin->setValue(shown);
    }
    if (m_slider->isSliderDown()) {
        Q_EMIT tuned(value(), !std::exchange(m_gestureStarted, true));
        return;
    }
    m_lastSi = value();
    Q_EMIT tuned(value(), true);   // keyboard, page step, wheel: one change
    Q_EMIT committed(value());
}

void TuningRow::onSpin() {
    if (value() == m_lastSi) return;   // focus left without a change
    {
        const QSignalBlocker block(m_slider);
        m_slider->setValue(toSlider(m_spin->value()));
    }
    m_lastSi = value();
    Q_EMIT tuned(value(), true);
    Q_EMIT committed(value());
}

void TuningRow::setSpinOnly(bool spinOnly) {
    m_rangeRow->setVisible(!spinOnly);
    const QSignalBlocker block(m_spinOnly);
    m_spinOnly->setChecked(spinOnly);
}

bool TuningRow::spinOnly() const { return m_spinOnly->isChecked(); }

void TuningRow::setError(const QString& reason) {
    setStyleSheet(reason.isEmpty() ? QString() : QStringLiteral("QDoubleSpinBox { color: #b00020; }"));
    m_spin->setToolTip(reason);
}

}   // namespace endstop::gui
