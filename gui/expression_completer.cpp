// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/expression_completer.hpp"

#include <QAbstractItemView>
#include <QCompleter>
#include <QLineEdit>
#include <QStringListModel>

#include <algorithm>

namespace endstop::gui {

namespace {
bool nameChar(QChar c) { return c.isLetterOrNumber() || c == '_'; }
}   // namespace

ExpressionCompleter::ExpressionCompleter(QLineEdit* line)
    : QObject(line), m_line(line), m_names(new QStringListModel(this)), m_completer(new QCompleter(this)) {
    m_completer->setModel(m_names);
    m_completer->setWidget(line);
    m_completer->setCaseSensitivity(Qt::CaseSensitive);
    m_completer->setCompletionMode(QCompleter::PopupCompletion);
    connect(line, &QLineEdit::textEdited, this, &ExpressionCompleter::update);
    connect(m_completer, qOverload<const QString&>(&QCompleter::activated), this, &ExpressionCompleter::insert);
}

void ExpressionCompleter::setNames(const QStringList& names) { m_names->setStringList(names); }

QString ExpressionCompleter::wordAtCursor() const {
    const QString text = m_line->text();
    int start = m_line->cursorPosition();
    while (start > 0 && nameChar(text[start - 1])) --start;
    const QString word = text.mid(start, m_line->cursorPosition() - start);
    if (word.isEmpty() || word[0].isDigit()) return {};
    int before = start;   // "10 m": a unit, not a name
    while (before > 0 && text[before - 1].isSpace()) --before;
    if (before > 0 && (text[before - 1].isDigit() || text[before - 1] == '.')) return {};
    return word;
}

void ExpressionCompleter::update() {
    const QString word = wordAtCursor();
    if (word.isEmpty() || m_names->stringList().isEmpty()) {
        m_completer->popup()->hide();
        return;
    }
    m_completer->setCompletionPrefix(word);
    const bool exact = m_completer->completionCount() == 1 && m_completer->currentCompletion() == word;
    if (m_completer->completionCount() == 0 || exact) {
        m_completer->popup()->hide();
        return;
    }
    m_completer->popup()->setCurrentIndex(m_completer->completionModel()->index(0, 0));
    // under the word being typed (cursorRect() is protected)
    const int left =
        m_line->fontMetrics().horizontalAdvance(m_line->text().left(m_line->cursorPosition() - word.size()));
    QRect r = m_line->rect();
    r.setLeft(std::min(left, r.width() / 2));
    r.setWidth(m_completer->popup()->sizeHintForColumn(0) + 24);
    m_completer->complete(r);
}

void ExpressionCompleter::insert(const QString& name) {
    const QString word = wordAtCursor();
    const int end = m_line->cursorPosition();
    QString text = m_line->text();
    text.replace(end - word.size(), word.size(), name);
    m_line->setText(text);
    m_line->setCursorPosition(end - static_cast<int>(word.size()) + static_cast<int>(name.size()));
    Q_EMIT m_line->textEdited(m_line->text());   // the field re-parses as if typed
}

}   // namespace endstop::gui
