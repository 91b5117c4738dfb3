// SPDX-License-Identifier: GPL-3.0-or-later
// The rich text that shows a block's help (Library and canvas tooltips, the parameter dialog's
// header). Help is plain text that may contain '<' and '&' ("x <= lower_bound"): it is escaped,
// or Qt would read the rest as a tag and cut it off. And counts in the GUI's sentences.
#pragma once

#include <QString>

namespace endstop::gui {

// "<b>title</b> (type id)<br>help", every part escaped; line breaks in the help are kept.
inline QString blockHelpHtml(const QString& title, const QString& typeId, const QString& help) {
    QString html = QStringLiteral("<b>%1</b> <span style='color:#666'>(%2)</span>")
                       .arg(title.toHtmlEscaped(), typeId.toHtmlEscaped());
    if (!help.isEmpty()) html += QStringLiteral("<br>") + help.toHtmlEscaped().replace('\n', QStringLiteral("<br>"));
    return html;
}

// Plain help as a tooltip that Qt never mistakes for markup.
inline QString plainTooltip(const QString& text) {
    return text.isEmpty() ? QString()
                          : QStringLiteral("<p>%1</p>").arg(text.toHtmlEscaped().replace('\n', QStringLiteral("<br>")));
}

// "1 note", "3 notes": a count with its noun in the singular or the plural
inline QString countOf(long n, const char* one, const char* many) {
    return QStringLiteral("%1 %2").arg(n).arg(QString::fromLatin1(n == 1 ? one : many));
}

}   // namespace endstop::gui
