package io.mpilens.plugin.debug;

import io.mpilens.headless.jdi.JdwpAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.jface.dialogs.InputDialog;
import org.eclipse.jface.window.Window;
import org.eclipse.ui.handlers.HandlerUtil;

/** "Attach to MPI Job…": asks for the ranks' JDWP addresses and attaches in a background job. */
public final class AttachToMpiJobHandler extends AbstractHandler {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Override
    public Object execute(ExecutionEvent event) {
        InputDialog d = new InputDialog(HandlerUtil.getActiveShell(event), "Attach to MPI Job",
                "JDWP addresses of the job's rank JVMs (host:port, separated by commas or spaces).\n"
                        + "Each rank prints 'Listening for transport dt_socket at address: PORT',\n"
                        + "or, started by mpilens, 'mpilens: JDWP listening at HOST:PORT'.",
                "", text -> {
                    try {
                        return parse(text).isEmpty() ? "Enter at least one host:port" : null;
                    } catch (IllegalArgumentException e) {
                        return e.getMessage();
                    }
                });
        if (d.open() != Window.OK) return null;
        List<JdwpAddress> addresses = parse(d.getValue());
        Job job = Job.create("Attaching to MPI job (" + addresses.size() + " rank JVMs)", monitor -> {
            try {
                JobAttach.attach("MPI job " + addresses, addresses, TIMEOUT);
                return Status.OK_STATUS;
            } catch (CoreException e) {
                return e.getStatus();
            }
        });
        job.setUser(true);
        job.schedule();
        return null;
    }

    static List<JdwpAddress> parse(String text) {
        List<JdwpAddress> out = new ArrayList<>();
        for (String s : text.trim().split("[,\\s]+")) {
            if (!s.isEmpty()) out.add(JdwpAddress.parse(s));
        }
        return out;
    }
}
