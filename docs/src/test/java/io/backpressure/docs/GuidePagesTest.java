package io.backpressure.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.policy.yaml.PolicyYaml;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The guide's code cannot rot. A page shows Java only as a block marked {@code <!-- include: path
 * -->} (a whole file) or {@code <!-- include: path#name -->} (the lines strictly between the one
 * holding {@code name: begin} and the one holding {@code name: end}, or {@code name:begin} and
 * {@code name:end}, with their common indentation removed); the block must equal that source, a
 * file the build compiles. A YAML block that starts with {@code target:} is a policy and must
 * parse. No page, and not the README, is longer than a ten-minute read. The README's layout table
 * names each module of the build, and no other.
 */
class GuidePagesTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final int MAX_LINES = 300;
  private static final Pattern INCLUDE =
      Pattern.compile(
          "<!-- include: ([^ #]+)(?:#([^>]+?))? -->\\n```[a-z]*\\n(.*?)```\\n", Pattern.DOTALL);
  private static final Pattern JAVA_BLOCK = Pattern.compile("^```java$", Pattern.MULTILINE);
  private static final Pattern LAYOUT_ROW = Pattern.compile("^\\| ([^|]+) \\|", Pattern.MULTILINE);
  private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
  private static final Pattern YAML_BLOCK =
      Pattern.compile("^```yaml\\n(.*?)^```$", Pattern.DOTALL | Pattern.MULTILINE);

  @Test
  void everyIncludedBlockEqualsItsSource() throws IOException {
    for (Path page : pages()) {
      Matcher m = INCLUDE.matcher(read(page));
      while (m.find()) {
        Path source = ROOT.resolve(m.group(1));
        assertThat(source).as("%s includes %s", page.getFileName(), m.group(1)).exists();
        String text = Files.readString(source, StandardCharsets.UTF_8);
        String expected = m.group(2) == null ? text : region(text, m.group(2));
        assertThat(m.group(3))
            .as("%s, block of %s", page.getFileName(), m.group(1))
            .isEqualTo(expected);
      }
    }
  }

  @Test
  void everyJavaBlockIsAnIncludedSource() throws IOException {
    List<Path> all = new ArrayList<>(pages());
    all.add(ROOT.resolve("README.md"));
    for (Path page : all) {
      String text = read(page);
      long javaBlocks = JAVA_BLOCK.matcher(text).results().count();
      long included =
          INCLUDE.matcher(text).results().filter(r -> r.group(0).contains("```java\n")).count();
      assertThat(included)
          .as("Java blocks of %s that are includes", page.getFileName())
          .isEqualTo(javaBlocks);
    }
  }

  @Test
  void everyPolicyShownParses() throws IOException {
    int policies = 0;
    for (Path page : pages()) {
      Matcher m = YAML_BLOCK.matcher(read(page));
      while (m.find()) {
        if (m.group(1).startsWith("target:")) {
          PolicyYaml.parse(m.group(1));
          policies++;
        }
      }
    }
    assertThat(policies).isPositive();
  }

  @Test
  void noPageIsLongerThanATenMinuteRead() throws IOException {
    List<Path> all = new ArrayList<>(pages());
    all.add(ROOT.resolve("README.md"));
    for (Path page : all) {
      assertThat(Files.readAllLines(page))
          .as("lines of %s", ROOT.relativize(page))
          .hasSizeLessThanOrEqualTo(MAX_LINES);
    }
  }

  @Test
  void theReadmesLayoutTableNamesEveryModuleOfTheBuild() throws IOException {
    String readme = read(ROOT.resolve("README.md"));
    int layout = readme.indexOf("\n## Layout\n");
    assertThat(layout).as("README's Layout section").isNotNegative();
    int next = readme.indexOf("\n## ", layout + 1);
    String table = readme.substring(layout, next < 0 ? readme.length() : next);
    Set<String> listed = new TreeSet<>();
    Matcher row = LAYOUT_ROW.matcher(table);
    while (row.find()) {
      Matcher name = Pattern.compile("`([^`]+)`").matcher(row.group(1));
      while (name.find()) {
        listed.add(name.group(1));
      }
    }
    Set<String> modules = new TreeSet<>();
    Matcher module = MODULE.matcher(read(ROOT.resolve("pom.xml")));
    while (module.find()) {
      modules.add(module.group(1));
    }
    assertThat(modules).isNotEmpty();
    assertThat(listed).as("modules in the README's layout table").isEqualTo(modules);
  }

  /** The guide's pages: every Markdown file of {@code docs/}. */
  private static List<Path> pages() throws IOException {
    try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
      List<Path> pages = files.filter(f -> f.toString().endsWith(".md")).sorted().toList();
      assertThat(pages).isNotEmpty();
      return pages;
    }
  }

  private static String read(Path page) throws IOException {
    return Files.readString(page, StandardCharsets.UTF_8);
  }

  /** The lines strictly between the markers of {@code name}, their common indentation removed. */
  private static String region(String source, String name) {
    Matcher begin = Pattern.compile(Pattern.quote(name) + ": ?(begin|start)").matcher(source);
    Matcher end = Pattern.compile(Pattern.quote(name) + ": ?end").matcher(source);
    assertThat(begin.find()).as("region '%s' begins", name).isTrue();
    assertThat(end.find(begin.end())).as("region '%s' ends", name).isTrue();
    int from = source.indexOf('\n', begin.start()) + 1;
    int to = source.lastIndexOf('\n', end.start()) + 1;
    List<String> lines = source.substring(from, to).lines().toList();
    int indent =
        lines.stream()
            .filter(l -> !l.isBlank())
            .mapToInt(l -> l.length() - l.stripLeading().length())
            .min()
            .orElse(0);
    StringBuilder out = new StringBuilder();
    for (String line : lines) {
      out.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
    }
    return out.toString();
  }
}
