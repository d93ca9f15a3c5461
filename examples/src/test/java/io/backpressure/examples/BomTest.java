package io.backpressure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The BOM manages this project's artifacts and nothing else (a third-party version in it would
 * override the application's own platform, Spring Boot's for one), and its README's table states
 * the versions each module is built and tested against: this keeps both true.
 */
class BomTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern ROW =
      Pattern.compile("^\\| ([^|]+) \\| ([^|]+) \\| ([^|]+) \\| `([^`]+)` \\|$");

  @Test
  void theBomManagesOnlyThisProjectsArtifacts() throws Exception {
    Element bom = pom(ROOT.resolve("bom/pom.xml"));
    assertThat(children(bom, "properties")).as("third-party version properties").isEmpty();
    Element managed = child(child(bom, "dependencyManagement"), "dependencies");
    for (Element dependency : children(managed, "dependency")) {
      assertThat(child(dependency, "groupId").getTextContent())
          .as("groupId of %s", child(dependency, "artifactId").getTextContent())
          .isEqualTo("io.backpressure");
      assertThat(children(dependency, "scope")).as("an imported BOM").isEmpty();
    }
  }

  @Test
  void theBomIsVersionedWithTheBuildAndListsOnlyModulesOfIt() throws Exception {
    Element bom = pom(ROOT.resolve("bom/pom.xml"));
    assertThat(child(bom, "version").getTextContent())
        .isEqualTo(System.getProperty("backpressure.version"));

    Map<String, Element> modules = modulePoms();
    List<String> moduleArtifacts = new ArrayList<>();
    for (Element module : modules.values()) {
      moduleArtifacts.add(child(module, "artifactId").getTextContent());
    }
    Element managed = child(child(bom, "dependencyManagement"), "dependencies");
    List<String> listed =
        children(managed, "dependency").stream()
            .map(d -> child(d, "artifactId").getTextContent())
            .toList();
    assertThat(listed).contains("backpressure-core", "backpressure-redis", "backpressure-temporal");
    assertThat(moduleArtifacts).containsAll(listed);
  }

  /**
   * Every row of the README's table names a pom property; the parent pom or the named modules' poms
   * set it, every pom of the build that sets it agrees with the table, and each named module is a
   * module of the build.
   */
  @Test
  void theVersionTableIsTheBuilds() throws Exception {
    String readme = Files.readString(ROOT.resolve("bom/README.md"));
    String table =
        readme.substring(
            readme.indexOf("<!-- versions: begin -->"), readme.indexOf("<!-- versions: end -->"));
    Map<String, Element> modules = modulePoms();
    Map<String, String> parent = properties(pom(ROOT.resolve("pom.xml")));
    int rows = 0;
    for (String line : table.lines().toList()) {
      Matcher row = ROW.matcher(line);
      if (!row.matches() || line.startsWith("| library")) {
        continue;
      }
      rows++;
      String version = row.group(2).replace(" (release)", "").strip();
      String property = row.group(4);
      List<String> named =
          row.group(3).strip().equals("all")
              ? List.copyOf(modules.keySet())
              : List.of(row.group(3).strip().split(", "));
      assertThat(modules.keySet()).as("modules of %s", row.group(1)).containsAll(named);

      List<String> setBy = new ArrayList<>();
      if (parent.containsKey(property)) {
        setBy.add("pom.xml");
        assertThat(parent.get(property)).as("pom.xml's %s", property).isEqualTo(version);
      }
      for (Path file : allPoms()) {
        Map<String, String> own = properties(pom(file));
        if (own.containsKey(property)) {
          setBy.add(ROOT.relativize(file).toString());
          assertThat(own.get(property)).as("%s's %s", file, property).isEqualTo(version);
        }
      }
      boolean namedModuleSetsIt = named.stream().anyMatch(m -> setBy.contains(m + "/pom.xml"));
      assertThat(setBy.contains("pom.xml") || namedModuleSetsIt)
          .as("%s is set by the parent or a module the table names (set by %s)", property, setBy)
          .isTrue();
    }
    assertThat(rows).isGreaterThanOrEqualTo(8);
  }

  private static Map<String, Element> modulePoms() throws Exception {
    Map<String, Element> modules = new LinkedHashMap<>();
    for (Element module : children(child(pom(ROOT.resolve("pom.xml")), "modules"), "module")) {
      String name = module.getTextContent();
      modules.put(name, pom(ROOT.resolve(name).resolve("pom.xml")));
    }
    return modules;
  }

  /** Every pom of the build below the root, the samples' own among them. */
  private static List<Path> allPoms() throws Exception {
    try (Stream<Path> files = Files.walk(ROOT, 3)) {
      return files
          .filter(f -> f.getFileName().toString().equals("pom.xml"))
          .filter(f -> !f.equals(ROOT.resolve("pom.xml")))
          .filter(f -> !ROOT.relativize(f).toString().matches("(.*/)?(target|src|\\..*)/.*"))
          .toList();
    }
  }

  private static Element pom(Path file) throws Exception {
    assertThat(file).exists();
    return DocumentBuilderFactory.newInstance()
        .newDocumentBuilder()
        .parse(Files.newInputStream(file))
        .getDocumentElement();
  }

  private static Map<String, String> properties(Element pom) {
    Map<String, String> properties = new LinkedHashMap<>();
    List<Element> sections = children(pom, "properties");
    if (sections.isEmpty()) {
      return properties;
    }
    for (Node n = sections.get(0).getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e) {
        properties.put(e.getTagName(), e.getTextContent().strip());
      }
    }
    return properties;
  }

  private static Element child(Element parent, String name) {
    List<Element> found = children(parent, name);
    assertThat(found).as("<%s> in <%s>", name, parent.getTagName()).hasSize(1);
    return found.get(0);
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        found.add(e);
      }
    }
    return found;
  }
}
