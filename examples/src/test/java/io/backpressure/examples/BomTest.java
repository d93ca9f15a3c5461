package io.backpressure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The BOM has no parent (so importing it brings nothing but what it manages) and therefore states
 * its versions itself; this keeps them equal to the versions the build compiles and tests with.
 */
class BomTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void theBomsLibraryVersionsAreTheBuilds() throws Exception {
    Map<String, String> bom = properties(pom(ROOT.resolve("bom/pom.xml")));
    Map<String, String> parent = properties(pom(ROOT.resolve("pom.xml")));

    assertThat(bom).isNotEmpty();
    bom.forEach(
        (name, version) ->
            assertThat(parent.get(name)).as("parent pom's %s", name).isEqualTo(version));
  }

  @Test
  void theBomIsVersionedWithTheBuildAndListsOnlyModulesOfIt() throws Exception {
    Element bom = pom(ROOT.resolve("bom/pom.xml"));
    assertThat(child(bom, "version").getTextContent())
        .isEqualTo(System.getProperty("backpressure.version"));

    List<String> moduleArtifacts = new ArrayList<>();
    for (Element module : children(child(pom(ROOT.resolve("pom.xml")), "modules"), "module")) {
      Path modulePom = ROOT.resolve(module.getTextContent()).resolve("pom.xml");
      moduleArtifacts.add(child(pom(modulePom), "artifactId").getTextContent());
    }
    Element managed = child(child(bom, "dependencyManagement"), "dependencies");
    List<String> listed =
        children(managed, "dependency").stream()
            .filter(d -> child(d, "groupId").getTextContent().equals("io.backpressure"))
            .map(d -> child(d, "artifactId").getTextContent())
            .toList();
    assertThat(listed).contains("backpressure-core", "backpressure-redis", "backpressure-temporal");
    assertThat(moduleArtifacts).containsAll(listed);
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
    for (Node n = child(pom, "properties").getFirstChild(); n != null; n = n.getNextSibling()) {
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
