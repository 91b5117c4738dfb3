// SPDX-License-Identifier: GPL-3.0-or-later
// SignalBrowser: every recordable variable of the model, grouped by block, with its unit (the
// display unit the plots use; results are SI) and description, and a filter box. Double-click a
// signal (or Enter) to plot it in the selected subplot; the context menu also offers a new subplot.
// Refreshed, debounced, after changes that are not just layout.
#pragma once

#include <QWidget>

class QLineEdit;
class QTimer;
class QTreeWidget;
class QTreeWidgetItem;

namespace endstop::gui {

class Document;

class SignalBrowser : public QWidget {
    Q_OBJECT
public:
    explicit SignalBrowser(Document& doc, QWidget* parent = nullptr);

    QTreeWidget* tree() const { return m_tree; }
    QLineEdit* filterBox() const { return m_filter; }
    QTreeWidgetItem* itemFor(const QString& column) const;
    void refresh();   // at once (tests)

Q_SIGNALS:
    void plotRequested(const QString& column, bool newSubplot);

private:
    void filter(const QString& text);
    void contextMenu(const QPoint& pos);

    Document& m_doc;
    QLineEdit* m_filter;
    QTreeWidget* m_tree;
    QTimer* m_debounce;
};

}   // namespace endstop::gui
