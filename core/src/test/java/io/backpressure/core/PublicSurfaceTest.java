package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code core}'s surface is deliberate: its main sources live in three packages — the API ({@code
 * io.backpressure.core}), provider feedback ({@code .feedback}) and the backend SPI ({@code .spi})
 * — and no source of any module imports from, or declares, another package of {@code core} (which
 * would be one nobody documented); tests may also use the test-jar's {@code .testing}. Every
 * package of every module's main sources says what it is for in a {@code package-info.java} (a
 * package split across modules, in one of them).
 */
class PublicSurfaceTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final String CORE = "io.backpressure.core";
  private static final Set<String> CORE_PACKAGES = Set.of(CORE, CORE + ".feedback", CORE + ".spi");

  /** An import from, or the declaration of, a package below {@code io.backpressure.core}. */
  private static final Pattern CORE_SUBPACKAGE =
      Pattern.compile(
          "^(?:import(?: static)?|package) io\\.backpressure\\.core((?:\\.[a-z][a-z0-9_]*)+)(?=\\.[A-Z*]|;)",
          Pattern.MULTILINE);

  @Test
  void coreHasItsThreePackagesOnly() throws IOException {
    Path main = ROOT.resolve("core/src/main/java");
    Set<String> packages = new TreeSet<>();
    for (Path source : javaFiles(main)) {
      packages.add(main.relativize(source.getParent()).toString().replace('/', '.'));
    }
    assertThat(packages).containsExactlyInAnyOrderElementsOf(CORE_PACKAGES);
  }

  @Test
  void noModuleReachesIntoAnUndocumentedPackageOfCore() throws IOException {
    List<Path> sources = javaFiles(ROOT);
    assertThat(sources).hasSizeGreaterThan(100);
    for (Path source : sources) {
      boolean test = source.toString().replace('\\', '/').contains("/src/test/");
      Matcher m = CORE_SUBPACKAGE.matcher(Files.readString(source, StandardCharsets.UTF_8));
      while (m.find()) {
        String pkg = CORE + m.group(1);
        if (!(test && pkg.equals(CORE + ".testing"))) {
          assertThat(pkg)
              .as("a package of core in %s", ROOT.relativize(source))
              .isIn(CORE_PACKAGES);
        }
      }
    }
  }

  @Test
  void everyPackageSaysWhatItIsFor() throws IOException {
    Set<String> packages = new TreeSet<>();
    Set<String> described = new TreeSet<>();
    for (Path source : javaFiles(ROOT)) {
      String path = ROOT.relativize(source).toString().replace('\\', '/');
      int main = path.indexOf("/src/main/java/");
      if (main < 0 || path.contains("/src/it/")) {
        continue; // tests, and the fresh projects the integration tests build
      }
      String pkg =
          path.substring(main + "/src/main/java/".length(), path.lastIndexOf('/'))
              .replace('/', '.');
      packages.add(pkg);
      if (path.endsWith("/package-info.java")) {
        described.add(pkg);
      }
    }
    assertThat(packages).contains(CORE, CORE + ".spi");
    assertThat(described).as("packages with a package-info.java").isEqualTo(packages);
  }

  /** Every {@code .java} file below {@code dir}, build output left out. */
  private static List<Path> javaFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(f -> f.toString().endsWith(".java"))
          .filter(f -> !ROOT.relativize(f).toString().replace('\\', '/').contains("target/"))
          .filter(f -> !ROOT.relativize(f).startsWith(".git"))
          .sorted()
          .toList();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
