package io.mpilens.plugin.views;

import io.mpilens.headless.ft.StatusWord;
import io.mpilens.plugin.model.StatePalette;
import java.util.stream.Collectors;
import org.eclipse.swt.SWT;
import org.eclipse.swt.custom.CLabel;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.widgets.Composite;

/**
 * The job's status word ({@link StatusWord}, as {@code mpilens status} prints it) on one coloured
 * line at the top of a view: its name, number and reasons in short; every reason in full as the tooltip.
 */
final class StatusWordLabel {
    /** A CLabel: it paints its own background (a plain Label's is not drawn under GTK 3). */
    private final CLabel label;

    /** A label filling the width of {@code parent}, whose layout is a {@code GridLayout}. */
    StatusWordLabel(Composite parent) {
        label = new CLabel(parent, SWT.NONE);
        label.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
    }

    /** A composite laid out as one column without margins: the status line above a view's content. */
    static Composite column(Composite parent) {
        Composite c = new Composite(parent, SWT.NONE);
        org.eclipse.swt.layout.GridLayout layout = new org.eclipse.swt.layout.GridLayout(1, false);
        layout.marginWidth = 0;
        layout.marginHeight = 0;
        layout.verticalSpacing = 2;
        c.setLayout(layout);
        return c;
    }

    void show(StatusWord w) {
        label.setText("Status " + w.line());
        label.setToolTipText(w.reasons().isEmpty() ? "Status word 0: no error, alarm or undefined rank"
                : w.reasons().stream().map(r -> StatusWord.name(r.bit()) + "  " + r.full()).collect(Collectors.joining("\n")));
        label.setBackground(Colors.of(StatePalette.fill(w)));
        label.getParent().layout(true);
    }

    /** What the line reads now (tests). */
    String text() {
        return label.getText();
    }
}
