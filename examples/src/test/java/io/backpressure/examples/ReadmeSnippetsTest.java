package io.backpressure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README's getting-started code cannot rot: each block marked {@code <!-- include: path -->} (a
 * whole file) or {@code <!-- include: path#name -->} (the lines between {@code name: begin} and
 * {@code name: end} in that file) must equal that source byte for byte, and every example source is
 * shown.
 */
class ReadmeSnippetsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern INCLUDE =
      Pattern.compile(
          "<!-- include: ([^ #]+)(?:#([^>]+?))? -->\\n```[a-z]*\\n(.*?)```\\n", Pattern.DOTALL);

  record Include(String path, String region, String shown) {}

  @Test
  void everyIncludedBlockEqualsItsSource() throws IOException {
    List<Include> includes = includes(ROOT.resolve("README.md"));
    assertThat(includes).isNotEmpty();
    for (Include include : includes) {
      String source = Files.readString(ROOT.resolve(include.path()), StandardCharsets.UTF_8);
      String expected = include.region() == null ? source : region(source, include.region());
      assertThat(include.shown()).as("README block for %s", include.path()).isEqualTo(expected);
    }
  }

  @Test
  void everyExampleIsShown() throws IOException {
    List<String> shown = includes(ROOT.resolve("README.md")).stream().map(Include::path).toList();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      for (Path file :
          files
              .filter(f -> f.toString().endsWith(".java"))
              .filter(f -> !f.endsWith("package-info.java"))
              .toList()) {
        assertThat(shown).contains("examples/" + file.toString().replace('\\', '/'));
      }
    }
  }

  @Test
  void theDependencyBlockNamesThisBuildsVersion() throws IOException {
    Include block =
        includes(ROOT.resolve("README.md")).stream()
            .filter(i -> i.path().endsWith("fresh-project/pom.xml"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("README shows no dependency block"));
    assertThat(block.shown())
        .contains("<artifactId>backpressure-bom</artifactId>")
        .contains("<version>" + System.getProperty("backpressure.version") + "</version>");
  }

  private static List<Include> includes(Path markdown) throws IOException {
    Matcher m = INCLUDE.matcher(Files.readString(markdown, StandardCharsets.UTF_8));
    List<Include> found = new ArrayList<>();
    while (m.find()) {
      found.add(new Include(m.group(1), m.group(2), m.group(3)));
    }
    return found;
  }

  /** The lines strictly between the ones containing {@code name: begin} and {@code name: end}. */
  private static String region(String source, String name) {
    int begin = source.indexOf(name + ": begin");
    int end = source.indexOf(name + ": end");
    assertThat(begin).as("region '%s' begins", name).isNotNegative();
    assertThat(end).as("region '%s' ends", name).isGreaterThan(begin);
    int from = source.indexOf('\n', begin) + 1;
    int to = source.lastIndexOf('\n', end) + 1;
    return source.substring(from, to);
  }
}
