package io.mpilens.headless;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The structure rules, checked over the compiled classes of handle-api, runtime-agent and
 * headless (this module sees all three: handle-api at compile scope, the agent at test scope), so
 * a wildcard import, an inline qualified name, a generic type argument or a lambda's target counts
 * as a dependency as much as an import line does. The rule that can only be read in the source (no
 * inline qualified names) is {@link QualifiedNamesTest}. docs/architecture.md, "Layers of headless".
 */
class ArchitectureTest {
    private static final String BASE = "io.mpilens.headless";
    /** Package (relative to {@value #BASE}; "" is the facade) to its layer: a package depends only on lower layers. */
    static final Map<String, Integer> LAYER = Map.ofEntries(
            Map.entry("jdi", 0), Map.entry("job", 1), Map.entry("hprof", 1), Map.entry("agentless", 2),
            Map.entry("ft", 3),
            Map.entry("observe", 4), Map.entry("launch", 4),
            Map.entry("json", 5), Map.entry("text", 5), Map.entry("leaks", 6), Map.entry("share", 6),
            Map.entry("cli", 7),
            Map.entry("", 8));

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.mpilens.api", "io.mpilens.agent", BASE);
        // the rules below say nothing if the classes are not there: make sure each module was imported
        for (String c : List.of("io.mpilens.api.model.HandleInfo", "io.mpilens.agent.intercept.Interceptor",
                "io.mpilens.headless.ft.FaultModel", "io.mpilens.headless.cli.MpiLensCli")) {
            assertTrue(main.contain(c), c + " imported from the class path");
        }
        assertFalse(main.contain(ArchitectureTest.class.getName()), "test classes kept out");
    }

    /** readers → pure model → observers → outputs → cli → facade; no package depends on its own layer or one above. */
    @Test
    void headlessPackagesDependOnlyOnLowerLayers() {
        TreeSet<String> unlayered = new TreeSet<>();
        for (JavaClass c : main) {
            String pkg = relative(c.getPackageName());
            if (pkg != null && !LAYER.containsKey(pkg)) unlayered.add(pkg);
        }
        assertEquals(Set.of(), unlayered, "packages without a layer: add them to LAYER and docs/architecture.md");
        classes().that().resideInAPackage(BASE + "..").should(dependOnlyOnLowerLayers()).check(main);
    }

    /** No cycle between packages, per module: a package cycle is a cycle of classes across packages. */
    @ParameterizedTest
    @ValueSource(strings = {"io.mpilens.api", "io.mpilens.agent", BASE})
    void noCycleBetweenPackages(String module) {
        slices().assignedFrom(eachPackageUnder(module)).should().beFreeOfCycles().check(main);
    }

    /**
     * The fault model is data in, data out: it sees the JDK's {@code java.lang}, {@code java.util}
     * and {@code java.time} and handle-api's model ({@code api.model}, and {@code api.binding}: the
     * MPI call names per binding, constants the agent shares), never a reader, an observer or I/O.
     */
    @Test
    void faultModelDependsOnlyOnTheJdkAndTheModel() {
        classes().that().resideInAPackage(BASE + ".ft..").should().onlyDependOnClassesThat().resideInAnyPackage(
                BASE + ".ft..", "io.mpilens.api.model..", "io.mpilens.api.binding..", "java.lang..", "java.util..",
                "java.time..").check(main);
    }

    /**
     * Nothing else in {@code agent.intercept} (describing a new handle, the agent's own calls) calls
     * back into the interceptor that uses it (issue 36: HandleDescriber called it 43 times).
     */
    @Test
    void describingAHandleDoesNotCallBackIntoTheInterceptor() {
        noClasses().that().resideInAPackage("io.mpilens.agent.intercept")
                .and().haveNameNotMatching("io\\.mpilens\\.agent\\.intercept\\.Interceptor(\\$.*)?")
                .should().dependOnClassesThat().haveFullyQualifiedName("io.mpilens.agent.intercept.Interceptor")
                .check(main);
    }

    /** The package relative to {@value #BASE} ("" for the facade), or null outside headless. */
    private static String relative(String pkg) {
        if (pkg.equals(BASE)) return "";
        if (!pkg.startsWith(BASE + ".")) return null;
        String rest = pkg.substring(BASE.length() + 1);
        int dot = rest.indexOf('.');
        return dot < 0 ? rest : rest.substring(0, dot);
    }

    private static ArchCondition<JavaClass> dependOnlyOnLowerLayers() {
        return new ArchCondition<>("depend only on packages of a lower layer (ArchitectureTest.LAYER)") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                String own = relative(c.getPackageName());
                Integer ownLayer = LAYER.get(own);
                for (Dependency d : c.getDirectDependenciesFromSelf()) {
                    String target = relative(d.getTargetClass().getPackageName());
                    if (target == null || target.equals(own)) continue;
                    Integer layer = LAYER.get(target);
                    if (ownLayer == null || layer == null || layer >= ownLayer) {
                        events.add(SimpleConditionEvent.violated(d, name(own) + " (layer " + ownLayer + ") -> " + name(target)
                                + " (layer " + layer + "): " + d.getDescription()));
                    }
                }
            }
        };
    }

    private static String name(String relative) {
        return relative.isEmpty() ? "facade" : relative;
    }

    /** Each package under the root is its own slice, the root package included. */
    private static SliceAssignment eachPackageUnder(String root) {
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass c) {
                String pkg = c.getPackageName();
                return pkg.equals(root) || pkg.startsWith(root + ".") ? SliceIdentifier.of(pkg) : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "each package under " + root;
            }
        };
    }
}
