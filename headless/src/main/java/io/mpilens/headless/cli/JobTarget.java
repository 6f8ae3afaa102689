package io.mpilens.headless.cli;

import io.mpilens.headless.ft.JobObserver;
import io.mpilens.headless.jdi.JdwpAddress;
import io.mpilens.headless.job.JobDirectory;
import io.mpilens.headless.job.JobRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/** {@code --job ID} or {@code --attach HOST:PORT,…}: which ranks a command reads. */
final class JobTarget {
    private JobTarget() {
    }

    static final class Choice {
        @Option(names = "--attach", split = ",", paramLabel = "HOST:PORT",
                converter = HandlesCommand.AddressConverter.class, description = "JDWP addresses of the ranks, comma-separated.")
        List<JdwpAddress> addresses;

        @Option(names = "--job", paramLabel = "ID", description = "A job listed by 'mpilens jobs': all its ranks.")
        String job;
    }

    /**
     * The distinct JDWP addresses to read (one per rank JVM); ranks that cannot be read (process
     * gone from this host, no JDWP address) are left out, with one line each in {@code problems}.
     */
    static List<JdwpAddress> addresses(Choice choice, Map<String, String> env, List<String> problems) throws IOException {
        if (choice.addresses != null) return choice.addresses;
        JobDirectory.JobEntry job = JobDirectory.forCurrentUser(env).job(choice.job);
        problems.addAll(job.refused());
        LinkedHashSet<JdwpAddress> out = new LinkedHashSet<>();
        for (JobRecord r : job.records()) {
            if (JobObserver.ended(r)) {
                problems.add("rank " + r.rank() + " of job " + job.id() + " (pid " + r.pid() + ") has ended: its"
                        + " process is gone; if it left a heap dump, read it with 'mpilens dump FILE'");
            } else if (r.jdwpAddress() != null) out.add(r.jdwpAddress());
            else problems.add("rank " + r.rank() + " of job " + job.id() + " registered no JDWP address:"
                    + " start its JVM with -agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0");
        }
        if (job.records().isEmpty()) throw new IOException("job " + job.id() + " has no readable rank record");
        return new ArrayList<>(out);
    }
}
