// SPDX-License-Identifier: GPL-3.0-or-later
// endstop-bench-run BATCH_EXE MODEL_DIR [REPS]: runs every benchmark model through
// `endstop-batch run MODEL --stats` REPS times as a separate process, measures the whole process
// (wall clock around fork/exec/wait, peak RSS from wait4's rusage, as /usr/bin/time -v reports it)
// and prints a table of medians plus the scaling ratios.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

struct Sample {
    double wall = 0.0;   // s
    long rssKb = 0;
    std::string stats;   // the --stats JSON line
    int exitCode = -1;
};

Sample runOnce(const std::string& exe, const std::string& model) {
    int pipefd[2];
    if (pipe(pipefd) != 0) return {};
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], STDOUT_FILENO);
        close(pipefd[0]);
        close(pipefd[1]);
        execl(exe.c_str(), exe.c_str(), "run", model.c_str(), "--stats", static_cast<char*>(nullptr));
        _exit(127);
    }
    close(pipefd[1]);
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = read(pipefd[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
    close(pipefd[0]);
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    Sample s;
    s.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    s.rssKb = usage.ru_maxrss;
    s.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    const auto brace = out.rfind('{');
    s.stats = brace == std::string::npos ? std::string() : out.substr(brace);
    return s;
}

double field(const std::string& json, const char* key) {
    const std::string k = std::string("\"") + key + "\":";
    const auto p = json.find(k);
    return p == std::string::npos ? -1.0 : std::strtod(json.c_str() + p + k.size(), nullptr);
}

template <class T> T median(std::vector<T> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}   // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: endstop-bench-run ENDSTOP_BATCH MODEL_DIR [REPS]\n");
        return 2;
    }
    const std::string exe = argv[1], dir = argv[2];
    const int reps = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
    std::setvbuf(stdout, nullptr, _IOLBF, 0);   // rows appear as they are measured
    const std::vector<std::string> models = {
        "a", "c", "b10", "b100", "b1000", "b10000", "e_polynomial", "e_table", "e_table_through"};
    std::map<std::string, double> wall;
    std::printf("%-16s %10s %9s %9s %8s %8s %7s %10s %8s %6s\n", "model", "wall_ms", "build_ms", "solve_ms", "steps",
                "jac", "events", "steps/ev", "peak_MB", "exit");
    for (const std::string& m : models) {
        std::vector<Sample> samples;
        const int n = m == "b10000" ? std::min(reps, 3) : reps;
        for (int i = 0; i < n; ++i) samples.push_back(runOnce(exe, dir + "/" + m + ".endstop"));
        std::vector<double> walls;
        std::vector<long> rss;
        for (const Sample& s : samples) {
            walls.push_back(s.wall);
            rss.push_back(s.rssKb);
        }
        const Sample& last = samples.back();
        const double events = field(last.stats, "events"), steps = field(last.stats, "steps");
        wall[m] = median(walls);
        std::printf("%-16s %10.1f %9.2f %9.1f %8.0f %8.0f %7.0f %10s %8.1f %6d\n", m.c_str(), wall[m] * 1e3,
                    field(last.stats, "build_s") * 1e3, field(last.stats, "solve_s") * 1e3, steps,
                    field(last.stats, "jacobian_evals"), events,
                    events > 0 ? std::to_string(static_cast<int>(steps / events + 0.5)).c_str() : "-",
                    static_cast<double>(median(rss)) / 1024.0, last.exitCode);
    }
    std::printf("\nt(b1000)/t(b100) = %.2f   t(b10000)/t(b1000) = %.2f   (medians of %d runs; whole process)\n",
                wall["b1000"] / wall["b100"], wall["b10000"] / wall["b1000"], reps);
    std::printf(
        "t(e_table)/t(e_polynomial) = %.1f   t(e_table_through)/t(e_polynomial) = %.1f   (the same law as a "
        "40,000-point table, its breakpoints located or stepped through)\n",
        wall["e_table"] / wall["e_polynomial"], wall["e_table_through"] / wall["e_polynomial"]);
    return 0;
}
