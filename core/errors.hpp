// SPDX-License-Identifier: GPL-3.0-or-later
// One error hierarchy, thrown at stage boundaries. Each carries the diagnostics that name blocks,
// ports and parameters; what() is the first one as one line.
#pragma once

#include "core/blockapi/diagnostic.hpp"

#include <stdexcept>

namespace endstop::core {

class Error : public std::runtime_error {
public:
    explicit Error(Diagnostics d);
    explicit Error(const std::string& message);
    const Diagnostics& diagnostics() const { return m_diagnostics; }

private:
    Diagnostics m_diagnostics;
};

class ModelError : public Error {
    using Error::Error;
};   // bad edit, unknown type or name
class TopologyError : public Error {
    using Error::Error;
};   // wiring and structure
class SolverError : public Error {
    using Error::Error;
};   // IDA failed; what() has time and block
class RunLimitError : public SolverError {
    using SolverError::SolverError;
};   // --max-steps / --max-wall
class FileFormatError : public Error {
    using Error::Error;
};   // project file
class IoError : public Error {
    using Error::Error;
};   // a file could not be written

}   // namespace endstop::core
