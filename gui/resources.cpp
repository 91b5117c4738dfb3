// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/resources.hpp"

#include <QtGlobal>

// Q_INIT_RESOURCE must be used outside any namespace
static void initEndstopResources() { Q_INIT_RESOURCE(endstop); }

namespace endstop::gui {

void initResources() {
    static const bool done = [] {
        initEndstopResources();
        return true;
    }();
    (void)done;
}

}   // namespace endstop::gui
