// SPDX-License-Identifier: GPL-3.0-or-later
// ModelBuilder: each call one edit of the model; values converted as the project-file reader does.
#include "support/model_builder.hpp"

#include "blocks/registry.hpp"
#include "core/io/project_file.hpp"
#include "core/errors.hpp"

#include <stdexcept>

namespace endstop::test {

namespace {

const core::ParamDesc* findParam(const core::Block& proto, const std::string& key) {
    for (const core::ParamDesc& d : proto.params())
        if (d.key == key) return &d;
    return nullptr;
}

// A string for a real or vector parameter is user text ("10 mm", "[0 1] mm", "2*k"): converted to
// SI like the file reader does. Numbers, vectors and choice keys are stored as they are.
core::ParamValue convert(const core::ParamValue& v, const core::ParamDesc& d, const core::model::Model& m) {
    const auto* text = std::get_if<std::string>(&v);
    if (!text) return v;
    if (d.type == core::ParamType::Real)
        return core::io::realText(*text, d, [&](std::string_view n) { return m.findParameter(n) != nullptr; });
    return core::io::parseParameterText(*text, d);
}

}   // namespace

ModelBuilder& ModelBuilder::block(const std::string& name, const std::string& type, const core::ParamValues& params,
                                  double x, double y) {
    const core::BlockType* registered = blocks::registry().find(type);
    if (!registered) throw std::invalid_argument("ModelBuilder: unknown block type '" + type + "'");
    const auto proto = blocks::registry().prototype(type);
    core::model::BlockSpec spec;
    spec.name = name;
    spec.type = type;
    spec.typeVersion = registered->info.typeVersion;
    spec.ui.x = x;
    spec.ui.y = y;
    for (const auto& [key, value] : params) {
        const core::ParamDesc* desc = findParam(*proto, key);
        if (!desc) throw std::invalid_argument("ModelBuilder: " + type + " has no parameter '" + key + "'");
        try {
            spec.params[key] = convert(value, *desc, m_model);
        } catch (const core::Error& e) {
            throw std::invalid_argument("ModelBuilder: " + name + "." + key + ": " + e.what());
        }
    }
    m_model.apply(core::model::AddBlock{spec});
    return *this;
}

ModelBuilder& ModelBuilder::connect(const std::string& a, const std::string& b) {
    const auto pa = core::model::PortRef::parse(a), pb = core::model::PortRef::parse(b);
    if (!pa || !pb) throw std::invalid_argument("ModelBuilder: expected \"block.port\", got '" + a + "', '" + b + "'");
    m_model.apply(core::model::Connect{core::model::Connection{*pa, *pb}});
    return *this;
}

ModelBuilder& ModelBuilder::parameter(const std::string& name, const std::string& value) {
    m_model.apply(core::model::SetModelParameter{name, value});
    return *this;
}

ModelBuilder& ModelBuilder::simulation(const core::model::SimulationSettings& settings) {
    m_model.apply(core::model::SetSimulation{settings});
    return *this;
}

ModelBuilder& ModelBuilder::stopTime(double seconds) {
    core::model::SimulationSettings s = m_model.simulation();
    s.stopTime = seconds;
    return simulation(s);
}

ModelBuilder& ModelBuilder::plot(const std::string& title, const std::vector<std::string>& signals) {
    std::vector<core::model::PlotSpec> plots = m_model.plots();
    plots.push_back(core::model::PlotSpec{title, signals});
    m_model.apply(core::model::SetPlots{plots});
    return *this;
}

core::model::Model pressedSlider(const std::string& law, const std::string& pushType, const core::ParamValues& push,
                                 core::ParamValues slider) {
    slider.emplace("mass", "0.5 kg");
    ModelBuilder b;
    b.block("push", pushType, push)
        .block("source", "translational.force_source")
        .block("slider", "translational.mass", slider)
        .block("stops", "translational.hard_stop",
               {{"model", law},
                {"upper_bound", "5 mm"},
                {"lower_bound", "-5 mm"},
                {"upper_stiffness", "1e9 N/m"},
                {"lower_stiffness", "1e9 N/m"}})
        .block("ground", "translational.reference");
    b.connect("push.y", "source.S").connect("source.R", "slider.M").connect("source.C", "ground.R");
    b.connect("slider.M", "stops.R").connect("stops.C", "ground.R");
    return b.build();
}

}   // namespace endstop::test
