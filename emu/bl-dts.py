import re, sys
s = sys.stdin.read()
# GIC: 4-cell interrupt specifiers (the 4th: a PPI partition phandle, 0 for none).
s = s.replace("#interrupt-cells = <0x03>;\n\n\t\tits@", "#interrupt-cells = <0x04>;\n\n\t\tppi-partitions {\n\t\t\tinterrupt-partition-0 {\n\t\t\t\tphandle = <0x8100>;\n\t\t\t\taffinity = <CPU0>;\n\t\t\t};\n\t\t\tinterrupt-partition-1 {\n\t\t\t\tphandle = <0x8101>;\n\t\t\t\taffinity = <CPU1>;\n\t\t\t};\n\t\t};\n\n\t\tits@")
def fix_interrupts(m):
    cells = m.group(1).split()
    assert len(cells) % 3 == 0, cells
    out = []
    for i in range(0, len(cells), 3):
        out += cells[i:i+3] + ["0x00"]
    return "interrupts = <%s>;" % " ".join(out)
s = re.sub(r"(?<![-\w])interrupts = <([^>]*)>;", fix_interrupts, s)
def fix_map(m):
    cells = m.group(1).split()
    assert len(cells) % 10 == 0
    out = []
    for i in range(0, len(cells), 10):
        out += cells[i:i+10] + ["0x00"]
    return "interrupt-map = <%s>;" % " ".join(out)
s = re.sub(r"interrupt-map = <([^>]*)>;", fix_map, s)
# CPU phandles, in cpu@0 and cpu@1 order.
c0 = re.search(r"cpu@0 \{\s*phandle = <(0x[0-9a-f]+)>", s).group(1)
c1 = re.search(r"cpu@1 \{\s*phandle = <(0x[0-9a-f]+)>", s).group(1)
s = s.replace("<CPU0>", "<%s>" % c0).replace("<CPU1>", "<%s>" % c1)
# Two PMUs over the two CPUs, as on a big.LITTLE board.
s = re.sub(r"\tpmu \{\n\t\tinterrupts = <0x01 0x07 0x04 0x00>;\n\t\tcompatible = \"arm,armv8-pmuv3\";\n\t\};\n",
    "\tpmu-little {\n\t\tinterrupts = <0x01 0x07 0x04 0x8100>;\n\t\tcompatible = \"arm,cortex-a53-pmu\";\n\t};\n\n"
    "\tpmu-big {\n\t\tinterrupts = <0x01 0x07 0x04 0x8101>;\n\t\tcompatible = \"arm,cortex-a72-pmu\";\n\t};\n", s)
sys.stdout.write(s)
