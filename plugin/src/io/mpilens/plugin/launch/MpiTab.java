package io.mpilens.plugin.launch;

import io.mpilens.headless.launch.Binding;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.debug.core.ILaunchConfiguration;
import org.eclipse.debug.core.ILaunchConfigurationWorkingCopy;
import org.eclipse.debug.ui.AbstractLaunchConfigurationTab;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Button;
import org.eclipse.swt.widgets.Combo;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Label;
import org.eclipse.swt.widgets.Spinner;
import org.eclipse.swt.widgets.Text;

/** The MPI tab: binding, number of ranks, extra mpirun arguments, agent options, whether to share the ranks' debugger connections. */
public final class MpiTab extends AbstractLaunchConfigurationTab {
    private static final String[] BINDING_LABELS = {
        "Open MPI (mpirun, one JVM per rank)",
        "MPJ Express multicore (all ranks in one JVM)",
        "MPJ Express niodev (one JVM per rank, private daemon)"};

    private Combo binding;
    private Spinner ranks;
    private Text mpirunArgs;
    private Text agentOptions;
    private Button share;

    @Override
    public void createControl(Composite parent) {
        Composite c = new Composite(parent, SWT.NONE);
        c.setLayout(new GridLayout(2, false));
        new Label(c, SWT.NONE).setText("MPI binding:");
        binding = new Combo(c, SWT.READ_ONLY);
        binding.setItems(BINDING_LABELS);
        binding.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        new Label(c, SWT.NONE).setText("Number of ranks:");
        ranks = new Spinner(c, SWT.BORDER);
        ranks.setValues(MpiLaunchSettings.DEFAULT_RANKS, 1, MpiLaunchSettings.MAX_RANKS, 0, 1, 4);
        new Label(c, SWT.NONE).setText("mpirun arguments:");
        mpirunArgs = new Text(c, SWT.BORDER);
        mpirunArgs.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        mpirunArgs.setToolTipText("Open MPI only, e.g. --mca orte_abort_on_non_zero_status 0 (survivors keep running"
                + " when a rank dies)");
        new Label(c, SWT.NONE).setText("Agent options:");
        agentOptions = new Text(c, SWT.BORDER);
        agentOptions.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false));
        agentOptions.setToolTipText("The mpilens agent's options, e.g. requestStacks=true,dumpOnError=/tmp");
        share = new Button(c, SWT.CHECK);
        share.setText("Share each rank's debugger connection (mpilens share)");
        share.setToolTipText("The console lists a port per rank JVM: IntelliJ IDEA, VS Code, jdb or another Eclipse"
                + " attach there beside this launch, and mpilens --job commands read through it");
        share.setLayoutData(new GridData(SWT.FILL, SWT.CENTER, true, false, 2, 1));
        Label note = new Label(c, SWT.WRAP);
        note.setText("Every rank JVM gets the mpilens agent and its own JDWP port; the launch attaches one Java debug"
                + " target per rank JVM.");
        note.setLayoutData(new GridData(SWT.FILL, SWT.TOP, true, false, 2, 1));
        binding.addModifyListener(e -> changed());
        ranks.addModifyListener(e -> changed());
        mpirunArgs.addModifyListener(e -> changed());
        agentOptions.addModifyListener(e -> changed());
        share.addListener(SWT.Selection, e -> changed());
        setControl(c);
    }

    private void changed() {
        updateLaunchConfigurationDialog();
    }

    @Override
    public void setDefaults(ILaunchConfigurationWorkingCopy config) {
        MpiLaunchSettings.defaults().attributes().forEach((k, v) -> set(config, k, v));
        config.setAttribute(MpiLaunchSettings.ATTR_SHARE, false);
    }

    @Override
    public void initializeFrom(ILaunchConfiguration config) {
        MpiLaunchSettings s;
        try {
            s = MpiLaunchSettings.from(config.getAttributes());
        } catch (CoreException | IllegalArgumentException e) {
            s = MpiLaunchSettings.defaults();
        }
        binding.select(s.binding().ordinal());
        ranks.setSelection(s.ranks());
        mpirunArgs.setText(s.mpirunArgs());
        agentOptions.setText(s.agentOptions());
        boolean shared;
        try {
            shared = config.getAttribute(MpiLaunchSettings.ATTR_SHARE, false);
        } catch (CoreException e) {
            shared = false;
        }
        share.setSelection(shared);
    }

    @Override
    public void performApply(ILaunchConfigurationWorkingCopy config) {
        fields().forEach((k, v) -> set(config, k, v));
        config.setAttribute(MpiLaunchSettings.ATTR_SHARE, share.getSelection());
    }

    private Map<String, Object> fields() {
        Map<String, Object> m = new HashMap<>();
        int i = binding.getSelectionIndex();
        m.put(MpiLaunchSettings.ATTR_BINDING, (i < 0 ? MpiLaunchSettings.DEFAULT_BINDING : Binding.values()[i]).id());
        m.put(MpiLaunchSettings.ATTR_RANKS, ranks.getSelection());
        m.put(MpiLaunchSettings.ATTR_MPIRUN_ARGS, mpirunArgs.getText());
        m.put(MpiLaunchSettings.ATTR_AGENT_OPTIONS, agentOptions.getText());
        return m;
    }

    @Override
    public boolean isValid(ILaunchConfiguration config) {
        String problem = MpiLaunchSettings.problem(fields());
        setErrorMessage(problem);
        return problem == null;
    }

    private static void set(ILaunchConfigurationWorkingCopy config, String key, Object value) {
        if (value instanceof Integer i) config.setAttribute(key, i.intValue());
        else config.setAttribute(key, String.valueOf(value));
    }

    @Override
    public String getName() {
        return "MPI";
    }
}
