// SPDX-License-Identifier: GPL-3.0-or-later
// QCustomPlot's header uses the `signals` and `foreach` keywords, which QT_NO_KEYWORDS (set for the
// whole project) turns off; include it through this file only.
#pragma once

#include <QtGlobal>

#define signals Q_SIGNALS
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef foreach
