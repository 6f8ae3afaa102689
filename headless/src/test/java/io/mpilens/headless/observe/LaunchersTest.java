package io.mpilens.headless.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LaunchersTest {
    private static Launchers.Launch parse(Map<String, String> env, Map<String, List<String>> files, String... argv) {
        return Launchers.parse(42, List.of(argv), env, files::get);
    }

    @Test
    void hostsComeFromTheHostOptionUpToTheProgramAndTheAgentFromItsMca() {
        Launchers.Launch l = parse(Map.of(), Map.of(), "/usr/bin/mpirun", "--allow-run-as-root", "--mca", "plm_rsh_agent",
                "/x/rsh-agent", "--mca", "plm_rsh_no_tree_spawn", "1", "--host", "a:2,b:2", "-np", "4", "-x", "FOO",
                "java", "-cp", "y", "Main", "--host", "not-a-rank-host");
        assertEquals(List.of("a", "b"), l.hosts());
        assertEquals("/x/rsh-agent", l.rshAgent());
        assertEquals("mpirun", l.command());
        assertEquals("--host", l.from());
    }

    @Test
    void shortAndInlineFormsAddUp() {
        assertEquals(List.of("a", "b", "c"), parse(Map.of(), Map.of(), "mpiexec", "-H", "a,b", "--host=c", "--oversubscribe", "./prog").hosts());
        assertEquals(List.of("n1"), parse(Map.of(), Map.of(), "orterun", "-host", "user@n1:4", "prog").hosts());
    }

    @Test
    void aHostfileIsReadFromTheLaunchersFilesWithItsComments() {
        Launchers.Launch l = parse(Map.of(), Map.of("hf", List.of("# the nodes", "n1 slots=2", "n2:4", "", "  user@n3 max_slots=8 # third", "n1")),
                "mpirun", "-np", "4", "--hostfile", "hf", "./prog");
        assertEquals(List.of("n1", "n2", "n3"), l.hosts());
        assertEquals("hostfile hf", l.from());
        assertEquals(List.of(), parse(Map.of(), Map.of(), "mpirun", "--machinefile", "gone", "prog").hosts(), "an unreadable hostfile names none");
        assertEquals(List.of("d1"), parse(Map.of("OMPI_MCA_orte_default_hostfile", "/etc/d"), Map.of("/etc/d", List.of("d1")),
                "mpirun", "prog").hosts());
    }

    @Test
    void withoutHostsTheAllocationNamesThem() {
        Launchers.Launch slurm = parse(Map.of("SLURM_JOB_NODELIST", "node[01-03,07],gpu5,rack[1-2]-n[1-2]"), Map.of(), "mpirun", "prog");
        assertEquals(List.of("node01", "node02", "node03", "node07", "gpu5", "rack1-n1", "rack1-n2", "rack2-n1", "rack2-n2"), slurm.hosts());
        assertEquals("SLURM_JOB_NODELIST", slurm.from());
        Launchers.Launch pbs = parse(Map.of("PBS_NODEFILE", "/var/pbs/nodes"), Map.of("/var/pbs/nodes", List.of("c1", "c1", "c2")), "mpirun", "prog");
        assertEquals(List.of("c1", "c2"), pbs.hosts());
        assertEquals(List.of("x[a-b]"), Launchers.expandNodeList("x[a-b]"), "a list it cannot read is kept as it is");
    }

    @Test
    void mpjExpressStarterNamesItsHostsInItsMachinesFile() {
        Map<String, List<String>> files = Map.of("/job/machines", List.of("node1", "node2"), "machines", List.of("m1", "# x", "m2"));
        Launchers.Launch niodev = parse(Map.of(), files, "/usr/lib/jvm/bin/java", "-Xmx1g", "-jar", "/opt/mpj/lib/starter.jar",
                "-np", "4", "-dev", "niodev", "-machinesfile", "/job/machines", "-dport", "10000", "-javaagent:/a.jar",
                "-cp", "x.jar", "Main", "-machinesfile", "elsewhere");
        assertEquals(List.of("node1", "node2"), niodev.hosts());
        assertEquals("mpjrun", niodev.command());
        assertEquals("machines file /job/machines", niodev.from());
        assertEquals(10000, niodev.mpjDaemonPort(), "the daemons' port it reached them on (-dport), for --via mpj");
        assertEquals(10000, Launchers.found(List.of(niodev)).mpjDaemonPort());
        assertEquals(0, parse(Map.of(), files, "java", "-jar", "lib/starter.jar", "-dev", "niodev", "Main").mpjDaemonPort(),
                "no -dport: said by nobody (its conf's port then)");
        assertEquals(List.of("m1", "m2"), parse(Map.of(), files, "java", "-jar", "lib/starter.jar", "-dev", "hybdev", "-np", "2", "Main").hosts(),
                "without -machinesfile: machines in its working directory");
        assertEquals(List.of(), parse(Map.of(), files, "java", "-jar", "starter.jar", "-np", "4", "Main").hosts(), "multicore: all here");
        assertEquals(-1, Launchers.mpjStarter(List.of("java", "-cp", "starter.jar", "Main")), "a class path naming it is not the starter");
        assertEquals(-1, Launchers.mpjStarter(List.of("java", "-jar", "other.jar")));
    }

    @Test
    void anOptionItDoesNotKnowEndsTheReadingInsteadOfInventingHosts() {
        // --weird takes a value mpilens does not know of: "val" reads as the program, the --host after it is missed
        assertEquals(List.of(), parse(Map.of(), Map.of(), "mpirun", "--weird", "val", "--host", "a", "prog").hosts());
    }

    @Test
    void theAgentIsTheFirstAlternativeAndTheEnvironmentsWhenNotGiven() {
        assertEquals("ssh", parse(Map.of("OMPI_MCA_plm_rsh_agent", "ssh : rsh"), Map.of(), "mpirun", "--host", "a", "p").rshAgent());
        assertEquals("/y", parse(Map.of("OMPI_MCA_plm_rsh_agent", "ssh"), Map.of(), "mpirun", "-mca", "plm_rsh_agent", "/y", "--host", "a", "p").rshAgent());
        assertNull(parse(Map.of(), Map.of(), "mpirun", "--host", "a", "p").rshAgent());
    }

    @Test
    void thisHostIsNoOtherHostAndLaunchersThatDisagreeOnTheAgentGetTheDefault() {
        String here = io.mpilens.api.job.HostName.local();
        Launchers.Launch a = new Launchers.Launch(1, "mpirun", List.of(here, "localhost", "h1"), "/a", "--host");
        Launchers.Launch b = new Launchers.Launch(2, "mpirun", List.of("h2", "h1"), "/b", "--host");
        Launchers.Launch local = new Launchers.Launch(3, "mpirun", List.of(here), "/c", "--host");
        assertEquals(List.of("h1"), a.otherHosts());
        Launchers.Found both = Launchers.found(List.of(a, b, local));
        assertEquals(List.of("h1", "h2"), both.hosts());
        assertNull(both.rshAgent());
        assertEquals("/a", Launchers.found(List.of(a, local)).rshAgent(), "a launcher with no other host has no say");
        assertEquals("mpirun pid 1 (--host): h1; mpirun pid 2 (--host): h2,h1", both.describe());
    }

    @Test
    void aProcessTreeIsReadForThisUsersLaunchersOnly(@TempDir Path proc) throws Exception {
        Files.createDirectories(proc.resolve("self"));
        Path launcher = Files.createDirectories(proc.resolve("123"));
        Files.write(launcher.resolve("cmdline"), "mpirun\0--hostfile\0hosts\0java\0Main\0".getBytes(StandardCharsets.UTF_8));
        Files.write(launcher.resolve("environ"), "OMPI_MCA_plm_rsh_agent=/agent\0HOME=/h\0".getBytes(StandardCharsets.UTF_8));
        Files.createDirectories(launcher.resolve("cwd"));
        Files.writeString(launcher.resolve("cwd/hosts"), "h1\nh2\n");
        Path shell = Files.createDirectories(proc.resolve("456"));
        Files.write(shell.resolve("cmdline"), "bash\0-c\0mpirun --host x\0".getBytes(StandardCharsets.UTF_8));
        Files.write(shell.resolve("environ"), new byte[0]);
        Files.createDirectories(proc.resolve("not-a-pid"));
        List<Launchers.Launch> found = Launchers.scan(proc);
        assertEquals(1, found.size(), found.toString());
        assertEquals(new Launchers.Launch(123, "mpirun", List.of("h1", "h2"), "/agent", "hostfile hosts"), found.get(0));
        assertEquals(List.of(), Launchers.scan(proc.resolve("absent")), "no /proc: nothing found");
    }
}
