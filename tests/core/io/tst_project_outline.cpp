// SPDX-License-Identifier: GPL-3.0-or-later
// The outline of a project file (core/io/project_outline.hpp): where the top-level blocks and
// connections lie, so that the reader parses them one at a time. What it finds must be what a
// whole-file parse finds; what it does not take falls back to that parse.
#include "support/test_support.hpp"

#include "core/io/project_file.hpp"
#include "core/io/project_outline.hpp"
#include "core/io/project_reader.hpp"
#include "core/errors.hpp"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace endstop;
using core::io::outline;

namespace {

// blocks whose text holds what a careless splitter would trip on: brackets, commas and escaped
// quotes inside strings, nested arrays, every kind of JSON whitespace, a byte order mark
// (plain literals: moc does not read raw strings with backslashes in them)
const QByteArray kTricky =
    "\xef\xbb\xbf {\"format\":\"endstop-project\" ,\"formatVersion\": 2,\n"
    "  \"blocks\" : [\n"
    "    {\"name\": \"m\", \"type\": \"translational.mass\", \"parameters\": {\"mass\": \"2 kg\"}} ,\r\n"
    "\t{\"name\": \"k\", \"type\": \"translational.spring\", \"parameters\": {\"stiffness\": 100},\n"
    "     \"ui\": {\"pos\": [-1.5e2, 0], \"units\": {\"stiffness\": \"N/mm\"}}},\n"
    "    {\"name\": \"g\", \"type\": \"translational.reference\"}\n"
    "  ],\n"
    "  \"plots\": [{\"title\": \"a ] \\\" }, { [ b\", \"signals\": [\"m.x\"]}],\n"
    "  \"connections\": [[\"m.M\", \"k.R\"],\n"
    "                  [\"k.C\", \"g.R\"]] ,\n"
    "  \"simulation\": {\"stop_time\": 0.5}}\n";

QString loadError(const QByteArray& text) {
    try {
        core::io::parseProject(text, "t.endstop", blocks::registry());
    } catch (const core::FileFormatError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

// The same, loaded from a file (loadProject reads the pieces from the file, not from its text).
QString fileLoadError(const QString& path) {
    try {
        core::io::loadProject(path, blocks::registry());
    } catch (const core::FileFormatError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

// A chain of n masses on springs: more blocks and connections than two of the reader's chunks.
QByteArray chain(int n) {
    QJsonArray blocks, connections;
    for (int i = 0; i < n; ++i) {
        const QString m = QString("m%1").arg(i), k = QString("k%1").arg(i);
        blocks.append(QJsonObject{
            {"name", m}, {"type", "translational.mass"}, {"parameters", QJsonObject{{"mass", 1.0 + i % 7}}}});
        blocks.append(QJsonObject{{"name", k}, {"type", "translational.spring"}});
        connections.append(QJsonArray{m + ".M", k + ".R"});
        if (i > 0) connections.append(QJsonArray{QString("k%1.C").arg(i - 1), m + ".M"});
    }
    return QJsonDocument(QJsonObject{{"format", "endstop-project"},
                                     {"formatVersion", 2},
                                     {"blocks", blocks},
                                     {"connections", connections}})
        .toJson();
}

}   // namespace

class TestProjectOutline : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void findsEveryElement() {
        const QByteArray text = kTricky;
        const auto o = outline(text);
        QVERIFY(o);
        const QJsonObject whole = QJsonDocument::fromJson(text).object();
        QVERIFY(o->blocks && o->connections);
        for (const auto& [ranges, key] :
             {std::pair{&*o->blocks, "blocks"}, std::pair{&*o->connections, "connections"}}) {
            const QJsonArray expected = whole[key].toArray();
            QCOMPARE(static_cast<qsizetype>(ranges->size()), expected.size());
            for (qsizetype i = 0; i < expected.size(); ++i)
                QCOMPARE(core::io::parseElement(text, (*ranges)[static_cast<std::size_t>(i)]), expected[i]);
            // a piece that does not parse where it stands says so, at the whole document's depth
            QVERIFY(!core::io::parseElement(R"([{"name" "k"}])", {1, 12}));
            const QByteArray deep = "[" + QByteArray(1023, '[') + QByteArray(1023, ']') + "]";
            QVERIFY(!core::io::parseElement(deep, {1, deep.size() - 2}));
            QVERIFY(core::io::parseElement(deep, {2, deep.size() - 4}));
        }
        QJsonObject skeleton = whole;
        skeleton["blocks"] = QJsonArray();
        skeleton["connections"] = QJsonArray();
        QCOMPARE(QJsonDocument::fromJson(o->skeleton).object(), skeleton);
    }

    // The model read from the outline is the one read from the whole document.
    void sameModelEitherWay_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("tricky") << kTricky;
        QTest::newRow("no connections") << QByteArray(
            R"({"format":"endstop-project","formatVersion":2,"blocks":[{"name":"m","type":"translational.mass"}]})");
        QTest::newRow("empty arrays") << QByteArray(
            R"({"format":"endstop-project","formatVersion":2,"blocks":[ ],"connections":[]})");
        QTest::newRow("example") << test::readBytes(test::sourcePath("resources/examples/gear_train_backlash.endstop"));
        QTest::newRow("1,500 blocks") << chain(750);
        // What simdjson's parse takes in directly, and what it leaves to Qt's: numbers Qt reads
        // its own way (-0.0 as +0), keys given twice (Qt keeps one), escapes, display units, a
        // string in a vector, flip as a number, rotations to wrap; a string quantity, an expression,
        // a choice and vectors.
        const QByteArray head = R"({"format":"endstop-project","formatVersion":2,)";
        QTest::newRow("numbers") << head + R"("blocks":[
            {"name":"a","type":"translational.mass","parameters":{"mass":-0.0},"ui":{"pos":[-0.0,1e2]}},
            {"name":"b","type":"translational.mass","parameters":{"mass":1e-310}},
            {"name":"c","type":"translational.mass","parameters":{"mass":9007199254740993},"typeVersion":1.0},
            {"name":"d","type":"translational.mass","parameters":{"mass":18446744073709551615}},
            {"name":"e","type":"translational.mass","parameters":{"mass":0.1},"ui":{"rotation":-90,"flip":1}},
            {"name":"f","type":"translational.mass","parameters":{"mass":-0},"ui":{"rotation":450,"flip":true}}]})";
        QTest::newRow("keys twice") << head + R"("blocks":[
            {"name":"a","type":"translational.mass","parameters":{"mass":1,"mass":2}},
            {"name":"b","type":"translational.mass","ui":{"pos":[1,2],"pos":[3,4]}},
            {"name":"c","type":"translational.mass","ui":{"x":1,"x":2}}]})";
        QTest::newRow("escapes and units") << head + R"("blocks":[
            {"name":"m\u0031","type":"translational.ma\u0073s","parameters":{"ma\u0073s":"2 kg"}},
            {"name":"m2","type":"translational.mass","parameters":{"mass":2},"ui":{"units":{"mass":"g"}}}],
            "connections":[["m\u0031.M","m2.M"]]})";
        QTest::newRow("values of every kind") << head + R"("parameters":[{"name":"m0","value":"3 kg"}],"blocks":[
            {"name":"m","type":"translational.mass","parameters":{"mass":"2*m0"}},
            {"name":"n","type":"translational.mass","parameters":{"mass":"10 g"}},
            {"name":"s","type":"translational.hard_stop","parameters":{"model":"full_damped","upper_bound":"1 mm"}},
            {"name":"t","type":"signal.table","parameters":{"times":[0,0.5,1],"values":"[0 1 2]"}},
            {"name":"u","type":"signal.table","parameters":{"times":[0,"0.5",1],"values":[1,2,3]}}],
            "connections":[["m.M","s.R"],["n.M","s.C"]]})";
        // a block written by an older version of its type keeps that version, read either way, and
        // one with a key its current version does not know (left to the slow path, as it was)
        QTest::newRow("older type versions") << head + R"("blocks":[
            {"name":"a","type":"translational.nonlinear_spring","typeVersion":1,
             "parameters":{"parameterization":"table","displacements":[0.01,0.02],"forces":[1,3]}},
            {"name":"b","type":"translational.nonlinear_spring","typeVersion":2.0,
             "parameters":{"parameterization":"table"}},
            {"name":"c","type":"rotational.nonlinear_spring","typeVersion":1,"parameters":{"retired":1}}]})";
    }
    void sameModelEitherWay() {
        QFETCH(QByteArray, text);
        QVERIFY(outline(text));
        const core::model::Model outlined = core::io::parseProject(text, "t.endstop", blocks::registry());
        const core::model::Model whole =
            core::io::readProject(QJsonDocument::fromJson(text).object(), "t.endstop", blocks::registry());
        QCOMPARE(core::io::serializeProject(outlined), core::io::serializeProject(whole));
        QVERIFY(outlined.blocks() == whole.blocks());
        // loaded from a file, the pieces are read again from the file, a chunk at a time
        QTemporaryDir dir;
        const QString path = test::writeBytes(dir.filePath("t.endstop"), text);
        const core::model::Model loaded = core::io::loadProject(path, blocks::registry());
        QCOMPARE(core::io::serializeProject(loaded), core::io::serializeProject(whole));
        QVERIFY(loaded.blocks() == whole.blocks());
        QVERIFY(loaded.connections() == whole.connections());
    }

    // The pieces of an outlined file come from the open file: the bytes of a span, or fewer if the
    // file no longer has them (it was cut short since), and then the outlined read fails.
    void piecesFromTheFile() {
        const QByteArray text = kTricky;
        QTemporaryDir dir;
        const QString path = test::writeBytes(dir.filePath("t.endstop"), text);
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const core::io::OutlinedText fromFile(f);
        const auto o = outline(text);
        QVERIFY(o && o->blocks);
        for (const core::io::TextRange& r : *o->blocks) QCOMPARE(fromFile.read(r), text.sliced(r.begin, r.size));
        QCOMPARE(fromFile.read({text.size() - 5, 10}), text.sliced(text.size() - 5));
        const core::model::Model whole = core::io::parseProject(text, "t.endstop", blocks::registry());
        const QJsonObject skeleton = QJsonDocument::fromJson(o->skeleton).object();
        QCOMPARE(core::io::serializeProject(core::io::readProject(skeleton, *o, fromFile, path, blocks::registry())),
                 core::io::serializeProject(whole));
        // the file cut short after it was outlined: a piece is missing
        test::writeBytes(path, text.first(o->blocks->back().begin + 3));
        QFile cut(path);
        QVERIFY(cut.open(QIODevice::ReadOnly));
        QVERIFY_THROWS_EXCEPTION(core::FileFormatError, core::io::readProject(skeleton, *o, core::io::OutlinedText(cut),
                                                                              path, blocks::registry()));
    }

    // Text the outline does not take is parsed whole, as before: same model, same errors. The
    // outline takes what it can split; a piece that then does not parse, or any other failure,
    // sends the load to the whole-file parse too (`outlined` says only whether it was split).
    void unusualText_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("outlined");
        QTest::addColumn<QString>("error");   // empty: it loads
        const QByteArray head = R"({"format":"endstop-project","formatVersion":2,)";
        const QByteArray mass = R"({"name":"m","type":"translational.mass"})";
        auto nested = [&](int depth) {   // a block that is `depth` arrays deep: the document is 2 deeper
            return head + R"("blocks":[)" + QByteArray(depth, '[') + QByteArray(depth, ']') + "]}";
        };
        QTest::newRow("escaped key") << head + "\"bl\\u006fcks\":[" + mass + "]}" << false << "";
        QTest::newRow("blocks twice") << head + R"("blocks":[],"blocks":[)" + mass + "]}" << false << "";
        QTest::newRow("blocks not an array") << head + R"("blocks":{})" + "}" << true << "blocks: expected an array";
        QTest::newRow("trailing comma") << head + R"("blocks":[)" + mass + ",]}" << false << "t.endstop:1:";
        QTest::newRow("garbage after") << head + R"("blocks":[)" + mass + "]} x" << false << "t.endstop:1:";
        QTest::newRow("unterminated") << head + "\"blocks\":[{\"name\":\"m" << false << "t.endstop:1:";
        QTest::newRow("brackets crossed") << head + R"("blocks":[{"name":"m"]}]})" << false << "t.endstop:1:";
        // Qt refuses documents more than 1024 deep: an element parsed alone must not pass where
        // the whole document fails
        QTest::newRow("deep") << nested(1022) << true << "blocks[0]: expected an object";
        QTest::newRow("too deep") << nested(1023) << true << "t.endstop:1:";
        // the syntax error is reported although an earlier block is wrong too: parsing comes first
        QTest::newRow("syntax after a bad block")
            << head + R"("blocks":[{"name":"m","type":"nope"}, {"name" "k"}]})" << true << "t.endstop:1:";
    }
    void unusualText() {
        QFETCH(QByteArray, text);
        QFETCH(bool, outlined);
        QFETCH(QString, error);
        QCOMPARE(outline(text).has_value(), outlined);
        const QString got = loadError(text);
        QTemporaryDir dir;
        const QString fromFile = fileLoadError(test::writeBytes(dir.filePath("t.endstop"), text));
        if (error.isEmpty()) {
            QVERIFY2(got.isEmpty(), qPrintable(got));
            QVERIFY2(fromFile.isEmpty(), qPrintable(fromFile));
            return;
        }
        QVERIFY2(got.contains(error), qPrintable(got));
        QCOMPARE(fromFile, QString(got).replace("t.endstop", dir.filePath("t.endstop")));
        QJsonParseError parse;
        QJsonDocument::fromJson(text, &parse);
        QCOMPARE(got.contains("malformed JSON"), parse.error != QJsonParseError::NoError);
    }
};

QTEST_GUILESS_MAIN(TestProjectOutline)
#include "tst_project_outline.moc"
