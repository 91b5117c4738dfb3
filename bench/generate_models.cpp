// SPDX-License-Identifier: GPL-3.0-or-later
// endstop-bench-models DIR: writes the benchmark models a, b10 ... b10000, b1000_varied, b10000_varied, c, d_smooth,
// d_full_damped, e_polynomial, e_table (40,000 points) and e_table_through as project files.
#include "bench/models.hpp"
#include "core/io/project_file.hpp"
#include "core/errors.hpp"

#include <QCoreApplication>
#include <QDir>

#include <iostream>
#include <string>
#include <string_view>

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const std::string_view arg = argc == 2 ? argv[1] : "";
    if (arg == "-h" || arg == "--help") {
        std::cout << "usage: endstop-bench-models OUTPUT_DIR\n";
        return 0;
    }
    if (argc != 2 || arg.empty() || arg.front() == '-') {   // "--help" was taken for a folder
        std::cerr << "usage: endstop-bench-models OUTPUT_DIR"
                  << (argc == 2 ? " (\"" + std::string(arg) + "\" is not a folder name: it starts with '-')" : "")
                  << "\n";
        return 2;
    }
    const QDir dir(argv[1]);
    if (!QDir().mkpath(dir.path())) {
        std::cerr << "cannot create " << argv[1] << "\n";
        return 2;
    }
    using namespace endstop;
    try {
        core::io::saveProject(bench::modelA(), dir.filePath("a.endstop"));
        for (int n : {10, 100, 1000, 10000})
            core::io::saveProject(bench::modelB(n), dir.filePath(QString("b%1.endstop").arg(n)));
        for (int n : {1000, 10000})
            core::io::saveProject(bench::modelBVaried(n), dir.filePath(QString("b%1_varied.endstop").arg(n)));
        core::io::saveProject(bench::modelC(), dir.filePath("c.endstop"));
        for (const char* law : {"smooth", "full_damped"})
            core::io::saveProject(bench::modelD(law), dir.filePath(QString("d_%1.endstop").arg(law)));
        core::io::saveProject(bench::modelE(0), dir.filePath("e_polynomial.endstop"));
        core::io::saveProject(bench::modelE(40'000), dir.filePath("e_table.endstop"));
        core::io::saveProject(bench::modelE(40'000, true), dir.filePath("e_table_through.endstop"));
    } catch (const core::Error& e) {
        std::cerr << e.what() << "\n";
        return 1;
    }
    return 0;
}
