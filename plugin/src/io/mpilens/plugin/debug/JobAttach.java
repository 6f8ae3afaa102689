package io.mpilens.plugin.debug;

import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import io.mpilens.headless.jdi.JdwpAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.Status;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.DebugPlugin;
import org.eclipse.debug.core.ILaunch;
import org.eclipse.debug.core.ILaunchManager;
import org.eclipse.debug.core.model.IDebugTarget;
import org.eclipse.jdt.debug.core.JDIDebugModel;

/**
 * Attaches to the rank JVMs of a running job: one JDT Java debug target per JDWP address, all
 * under one {@link MpiLaunch}, so the Debug view shows the job as one entry and the MPI views aggregate
 * its ranks. Blocks on JDWP: never call it on the UI thread.
 */
public final class JobAttach {
    private static final String SOCKET_ATTACH = "com.sun.jdi.SocketAttach";
    private static final String PLUGIN_ID = "io.mpilens.plugin";

    private JobAttach() {
    }

    public static ILaunch attach(String jobName, List<JdwpAddress> addresses, Duration timeout) throws CoreException {
        ILaunch launch = new MpiLaunch(null, ILaunchManager.DEBUG_MODE);
        launch.setAttribute(MpiJob.ATTR_JOB_NAME, jobName);
        List<String> labels = new ArrayList<>();
        for (JdwpAddress a : addresses) labels.add("rank JVM " + a);
        attachTargets(launch, addresses, labels, timeout);
        DebugPlugin.getDefault().getLaunchManager().addLaunch(launch);
        return launch;
    }

    /**
     * Adds one JDT Java debug target per address to {@code launch}, named by {@code labels}.
     * All or nothing: when one rank cannot be attached, those attached are disconnected again.
     */
    public static List<IDebugTarget> attachTargets(ILaunch launch, List<JdwpAddress> addresses, List<String> labels,
                                                   Duration timeout) throws CoreException {
        AttachingConnector connector = socketConnector();
        List<IDebugTarget> attached = new ArrayList<>();
        for (int i = 0; i < addresses.size(); i++) {
            JdwpAddress a = addresses.get(i);
            Map<String, Connector.Argument> args = connector.defaultArguments();
            args.get("hostname").setValue(a.host());
            args.get("port").setValue(Integer.toString(a.port()));
            Connector.Argument t = args.get("timeout");
            if (t != null) t.setValue(Long.toString(timeout.toMillis()));
            VirtualMachine vm;
            try {
                vm = connector.attach(args);
            } catch (Exception e) {
                for (IDebugTarget done : attached) disconnect(done);
                throw new CoreException(Status.error("cannot attach to rank JVM " + a + ": " + e.getMessage()
                        + ". Is it running with -agentlib:jdwp=transport=dt_socket,server=y,... on that port,"
                        + " and no other debugger attached?", e));
            }
            IDebugTarget target = JDIDebugModel.newDebugTarget(launch, vm, labels.get(i), null, true, true, true);
            if (!List.of(launch.getDebugTargets()).contains(target)) launch.addDebugTarget(target);
            attached.add(target);
        }
        return attached;
    }

    private static AttachingConnector socketConnector() throws CoreException {
        for (AttachingConnector c : org.eclipse.jdi.Bootstrap.virtualMachineManager().attachingConnectors()) {
            if (c.name().equals(SOCKET_ATTACH)) return c;
        }
        throw new CoreException(new Status(IStatus.ERROR, PLUGIN_ID, "Eclipse's JDI has no " + SOCKET_ATTACH + " connector"));
    }

    private static void disconnect(IDebugTarget t) {
        try {
            if (t.canDisconnect()) t.disconnect();
        } catch (DebugException e) {
            // it is going away anyway
        }
    }
}
