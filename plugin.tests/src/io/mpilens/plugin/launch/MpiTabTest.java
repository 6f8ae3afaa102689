package io.mpilens.plugin.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mpilens.headless.launch.Binding;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Combo;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Display;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.swt.widgets.Spinner;
import org.eclipse.swt.widgets.Text;
import org.junit.jupiter.api.Test;

/** The MPI tab in a real shell, on a real (unsaved) launch configuration of the MPI Java Application type. */
class MpiTabTest {
    @Test
    void theTabShowsStoresAndChecksTheMpiSettings() throws Exception {
        ILaunchConfigurationWorkingCopy wc = DebugPlugin.getDefault().getLaunchManager()
                .getLaunchConfigurationType(MpiLaunchSettings.TYPE_ID).newInstance(null, "tab test");
        Shell shell = new Shell(Display.getCurrent());
        try {
            MpiTab tab = new MpiTab();
            tab.createControl(shell);
            tab.setDefaults(wc);
            assertEquals(MpiLaunchSettings.defaults(), MpiLaunchSettings.from(wc.getAttributes()));

            new MpiLaunchSettings(Binding.MPJ_NIODEV, 3, "", "requestStacks=true").attributes().forEach((k, v) -> {
                if (v instanceof Integer i) wc.setAttribute(k, i.intValue());
                else wc.setAttribute(k, (String) v);
            });
            tab.initializeFrom(wc);
            Combo binding = find(tab.getControl(), Combo.class, 0);
            Spinner ranks = find(tab.getControl(), Spinner.class, 0);
            Text mpirun = find(tab.getControl(), Text.class, 0);
            assertEquals(2, binding.getSelectionIndex());
            assertTrue(binding.getText().startsWith("MPJ Express niodev"), binding.getText());
            assertEquals(3, ranks.getSelection());
            assertEquals("requestStacks=true", find(tab.getControl(), Text.class, 1).getText());
            assertTrue(tab.isValid(wc));
            assertNull(tab.getErrorMessage());

            mpirun.setText("--mca btl self");
            assertFalse(tab.isValid(wc), "mpirun arguments on MPJ are refused");
            assertEquals("mpirun arguments apply to Open MPI only, not mpj-niodev: clear them or choose Open MPI",
                    tab.getErrorMessage());
            binding.select(0);
            ranks.setSelection(8);
            assertTrue(tab.isValid(wc));
            tab.performApply(wc);
            assertEquals(new MpiLaunchSettings(Binding.OPENMPI, 8, "--mca btl self", "requestStacks=true"),
                    MpiLaunchSettings.from(wc.getAttributes()));

            // the share checkbox: off by default, stored, read back
            assertFalse(wc.getAttribute(MpiLaunchSettings.ATTR_SHARE, true), "no share unless asked");
            Button share = find(tab.getControl(), Button.class, 0);
            assertTrue(share.getText().contains("mpilens share"), share.getText());
            share.setSelection(true);
            tab.performApply(wc);
            assertTrue(wc.getAttribute(MpiLaunchSettings.ATTR_SHARE, false));
            share.setSelection(false);
            tab.initializeFrom(wc);
            assertTrue(share.getSelection(), "the stored choice is shown again");
        } finally {
            shell.dispose();
        }
    }

    private static <T extends Control> T find(Control c, Class<T> type, int index) {
        int[] seen = {0};
        T found = find(c, type, index, seen);
        if (found == null) throw new AssertionError("no " + type.getSimpleName() + " #" + index + " in the tab");
        return found;
    }

    private static <T extends Control> T find(Control c, Class<T> type, int index, int[] seen) {
        if (type.isInstance(c) && seen[0]++ == index) return type.cast(c);
        if (c instanceof Composite comp) {
            for (Control child : comp.getChildren()) {
                T f = find(child, type, index, seen);
                if (f != null) return f;
            }
        }
        return null;
    }
}
