// SPDX-License-Identifier: GPL-3.0-or-later
// The block library. Adding a block: its file under blocks/, its line here, its line in
// blocks/CMakeLists.txt.
#include "blocks/registry.hpp"

namespace endstop::blocks {

#define ENDSTOP_BLOCKS(fn)        \
    do {                          \
        void fn(core::Registry&); \
        fn(r);                    \
    } while (false)

const core::Registry& registry() {
    static const core::Registry instance = [] {
        core::Registry r;
        ENDSTOP_BLOCKS(addReference);
        ENDSTOP_BLOCKS(addMass);
        ENDSTOP_BLOCKS(addSpring);
        ENDSTOP_BLOCKS(addDamper);
        ENDSTOP_BLOCKS(addHardStop);
        ENDSTOP_BLOCKS(addSources);
        ENDSTOP_BLOCKS(addSensors);
        ENDSTOP_BLOCKS(addWheelAxle);
        ENDSTOP_BLOCKS(addStiction);
        ENDSTOP_BLOCKS(addIdealGear);
        ENDSTOP_BLOCKS(addClutch);
        ENDSTOP_BLOCKS(addFrictionInertia);
        ENDSTOP_BLOCKS(addNonlinearSpring);
        ENDSTOP_BLOCKS(addSignalSources);
        ENDSTOP_BLOCKS(addTable);
        ENDSTOP_BLOCKS(addSignalMath);
        ENDSTOP_BLOCKS(addSignalNonlinear);
        return r;
    }();
    return instance;
}

}   // namespace endstop::blocks
