// Runs after the fresh Boot application's build: it started, and every library that Spring Boot's
// dependency management names resolved to Boot's version, not to one from the Backpressure BOM.
def log = new File(basedir, 'build.log').text
assert log.contains('fresh Boot app started: gate openai/gpt-4o-mini'): 'the application did not start'

def resolved = new File(basedir, 'target/dependency-tree.txt').readLines().drop(1).collect { line ->
  def parts = line.replaceFirst(/^[|+\\\- ]+/, '').split(':')
  [group: parts[0], artifact: parts[1], version: parts[parts.length - 2]]
}
def bootPom = new File(localRepositoryPath,
    "org/springframework/boot/spring-boot-dependencies/${springBootVersion}/spring-boot-dependencies-${springBootVersion}.pom")
def bootText = bootPom.text
def bootVersion = { String property ->
  def m = bootText =~ "<${java.util.regex.Pattern.quote(property)}>([^<]+)</"
  assert m.find(): "no ${property} in ${bootPom}"
  m.group(1)
}
def expected = [
    'io.micrometer:micrometer-core'            : bootVersion('micrometer.version'),
    'io.micrometer:micrometer-observation'     : bootVersion('micrometer.version'),
    'com.fasterxml.jackson.core:jackson-databind': bootVersion('jackson-2-bom.version'),
]
expected.each { artifact, version ->
  def found = resolved.findAll { "${it.group}:${it.artifact}" == artifact }.collect { it.version }
  assert found == [version]: "${artifact}: Boot manages ${version}, resolved ${found}"
}
def ours = resolved.findAll { it.group == 'io.backpressure' }.collect { it.version }.unique()
assert ours == [backpressureVersion]: "io.backpressure: ${ours}"
println "fresh Boot app: ${resolved.size()} dependencies, Boot's versions kept"
