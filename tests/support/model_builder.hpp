// SPDX-License-Identifier: GPL-3.0-or-later
// ModelBuilder: a test's model written as C++ instead of project-file JSON. Each call is one
// edit of core::Model (AddBlock, Connect, SetModelParameter, SetSimulation), so a test reads as the
// network it wires:
//
//     test::ModelBuilder b;
//     b.block("m", "translational.mass", {{"mass", 2.0}, {"initial_velocity", 1.0}})
//      .block("stop", "translational.hard_stop", {{"model", "full_damped"}})
//      .connect("m.M", "stop.R");
//     core::Model model = b.build();
//
// Values are read as a project file reads them (core/io/project_file.hpp): numbers are SI, a
// string for a real parameter is a quantity ("10 mm") or an expression ("2*k"), a string for a
// choice is its key. A block gets its type's current typeVersion, as a file without one does. A
// type the registry does not have, a key the type does not have, or text that does not read as a
// value throws std::invalid_argument: a typo in a test must not silently leave a parameter at its
// default. Connecting a block that does not exist throws core::ModelError (the model's own check).
#pragma once

#include "core/model/model.hpp"

#include <QMetaType>

#include <string>
#include <vector>

namespace endstop::test {

class ModelBuilder {
public:
    // A block at (x, y) on the canvas; params are only the values that differ from the defaults.
    ModelBuilder& block(const std::string& name, const std::string& type, const core::ParamValues& params = {},
                        double x = 0.0, double y = 0.0);
    // Joins two ports named "block.port".
    ModelBuilder& connect(const std::string& a, const std::string& b);
    // A named model parameter (an expression such as "1e4 N/m" or "2*k_base").
    ModelBuilder& parameter(const std::string& name, const std::string& value);
    // Simulation settings; the others keep their defaults.
    ModelBuilder& simulation(const core::model::SimulationSettings& settings);
    ModelBuilder& stopTime(double seconds);
    ModelBuilder& plot(const std::string& title, const std::vector<std::string>& signals);

    const core::model::Model& model() const { return m_model; }
    core::model::Model build() const { return m_model; }

private:
    core::model::Model m_model;
};

// A slider of 0.5 kg (`slider`, more of its parameters in `slider`) pressed by a force (the signal
// block `push`, a constant 10 N unless given) from rest into a stop 5 mm away on either side
// (`stops`, the given law, 1e9 N/m), the rattling example's slider made stiff.
core::model::Model pressedSlider(const std::string& law = "full_undamped",
                                 const std::string& pushType = "signal.constant",
                                 const core::ParamValues& push = {{"value", "10 N"}}, core::ParamValues slider = {});

}   // namespace endstop::test

// Parameter values as a column of a data-driven test (QTest::addColumn<core::ParamValues>).
Q_DECLARE_METATYPE(endstop::core::ParamValues)
