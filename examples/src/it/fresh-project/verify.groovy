// Runs after the fresh project's build: the example ran to the end, and dependency:tree shows the
// libraries the modules share at the versions this build was made with. The BOM manages only this
// project's artifacts, so these come from the modules' own dependencies (nearest wins). Micrometer
// is not among them: none of these three modules uses it, and Temporal's SDK brings its own.
def log = new File(basedir, 'build.log').text
assert log.contains('100 calls made'): 'the in-memory example did not run to the end'

// Tree lines look like "|  +- group:artifact:type[:classifier]:version:scope".
def resolved = new File(basedir, 'target/dependency-tree.txt').readLines().drop(1).collect { line ->
  def parts = line.replaceFirst(/^[|+\\\- ]+/, '').split(':')
  [group: parts[0], artifact: parts[1], version: parts[parts.length - 2]]
}
assert resolved.size() > 20: "too few dependencies in the tree: ${resolved}"

def versionsOf = { Closure<Boolean> inFamily ->
  resolved.findAll(inFamily).collect { it.version }.unique()
}
def expected = [
    'io.backpressure'      : backpressureVersion,
    'com.fasterxml.jackson': jacksonVersion,
    'io.temporal'          : temporalVersion,
    'io.lettuce'           : lettuceVersion,
]
expected.each { family, version ->
  // jackson-annotations carries only major.minor since Jackson 2.20; it is checked below.
  def versions = versionsOf { it.group.startsWith(family) && it.artifact != 'jackson-annotations' }
  assert versions == [version]: "${family}: expected only ${version}, resolved ${versions}"
}
def annotations = versionsOf { it.artifact == 'jackson-annotations' }
assert annotations.size() == 1 && jacksonVersion.startsWith(annotations[0]):
    "jackson-annotations ${annotations} does not match Jackson ${jacksonVersion}"

// And no artifact appears in two versions.
resolved.groupBy { "${it.group}:${it.artifact}" }.each { artifact, found ->
  assert found.collect { it.version }.unique().size() == 1: "${artifact} resolves to ${found}"
}
println "fresh project: ${resolved.size()} dependencies, one version per library"
