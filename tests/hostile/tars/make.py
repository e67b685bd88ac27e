# Makes the tar streams of this directory (run once, the results are committed):
#   python3 tests/hostile/tars/make.py tests/hostile/tars
import io, os, sys, tarfile
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
M = 1700000000

def member(name, data=b"x\n", **kw):
    ti = tarfile.TarInfo(name)
    ti.size = len(data); ti.mtime = M; ti.mode = 0o644
    for k, v in kw.items(): setattr(ti, k, v)
    return ti, data

def write(fname, members, fmt=tarfile.USTAR_FORMAT):
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode="w", format=fmt) as t:
        for ti, data in members:
            if ti.type in (tarfile.REGTYPE, tarfile.AREGTYPE):
                t.addfile(ti, io.BytesIO(data))
            else:
                ti.size = 0
                t.addfile(ti)
    open(os.path.join(out, fname), "wb").write(b.getvalue())
    return b.getvalue()

def link(name, target, typ):
    ti = tarfile.TarInfo(name); ti.type = typ; ti.linkname = target; ti.mtime = M; ti.mode = 0o777
    return ti, b""

E = "hostile-escape"
write("dotdot.tar", [member("../" + E)])
write("dotdot-deep.tar", [member("../../../../../../../../" + E)])
write("dotdot-middle.tar", [member("a/../../" + E)])
write("dotdot-after-good.tar", [member("good.txt"), member("sub/../../" + E)])
dirinfo = tarfile.TarInfo("../" + E + "-dir")
dirinfo.type = tarfile.DIRTYPE
dirinfo.mode = 0o755
write("dotdot-dir.tar", [(dirinfo, b"")])
write("symlink-out-then-file.tar", [link("out", "../../../../../..", tarfile.SYMTYPE),
                                    member("out/" + E)])
write("symlink-abs-then-file.tar", [link("tmpdir", "/tmp", tarfile.SYMTYPE),
                                    member("tmpdir/" + E)])
write("symlink-etc.tar", [link("passwd", "/etc/passwd", tarfile.SYMTYPE)])
write("symlink-dotdot.tar", [link("up", "../../../" + E, tarfile.SYMTYPE)])
write("symlink-chain.tar", [link("a", "b", tarfile.SYMTYPE), link("b", "../../../..", tarfile.SYMTYPE),
                            member("a/" + E)])
write("hardlink-etc.tar", [link("pw", "/etc/passwd", tarfile.LNKTYPE)])
write("hardlink-dotdot.tar", [link("h", "../../../../pricebook.json", tarfile.LNKTYPE)])
write("hardlink-inside.tar", [member("one.txt"), link("two.txt", "one.txt", tarfile.LNKTYPE)])
write("pax-dotdot.tar", [member("x" * 10, pax_headers={"path": "../../" + E})], tarfile.PAX_FORMAT)
write("gnu-longname-dotdot.tar", [member("../" * 40 + E)], tarfile.GNU_FORMAT)
li = tarfile.TarInfo("l")
li.type = tarfile.SYMTYPE
li.linkname = "short"
li.pax_headers = {"linkpath": "../../../../../" + E}
write("pax-linkpath-out.tar", [(li, b"")], tarfile.PAX_FORMAT)
ti = tarfile.TarInfo("dev"); ti.type = tarfile.CHRTYPE; ti.devmajor = 1; ti.devminor = 3
write("chardev.tar", [(ti, b"")])
ti = tarfile.TarInfo("fifo"); ti.type = tarfile.FIFOTYPE
write("fifo.tar", [(ti, b"")])
ti = tarfile.TarInfo("blk"); ti.type = tarfile.BLKTYPE; ti.devmajor = 8; ti.devminor = 0
write("blockdev.tar", [(ti, b"")])
good = write("good.tar", [member("good.txt", b"good\n")])
open(os.path.join(out, "truncated-header.tar"), "wb").write(good[:300])
open(os.path.join(out, "truncated-data.tar"), "wb").write(good[:512 + 2])
bad = bytearray(good); bad[148:156] = b"0000000\0"
open(os.path.join(out, "bad-checksum.tar"), "wb").write(bytes(bad))

def with_field(data, off, length, value):
    b = bytearray(data)
    b[off:off + length] = value.ljust(length, b"\0")[:length]
    b[148:156] = b"        "
    s = sum(b[0:512])
    b[148:156] = ("%06o\0 " % s).encode()
    return bytes(b)

open(os.path.join(out, "size-not-octal.tar"), "wb").write(with_field(good, 124, 12, b"99999999999"))
open(os.path.join(out, "size-huge.tar"), "wb").write(with_field(good, 124, 12, b"77777777777"))
open(os.path.join(out, "size-base256.tar"), "wb").write(
    with_field(good, 124, 12, b"\x80" + b"\x00" * 3 + b"\xff" * 8))
open(os.path.join(out, "name-with-nul-dotdot.tar"), "wb").write(with_field(good, 0, 100, b"ok\0/../../x"))
open(os.path.join(out, "prefix-dotdot.tar"), "wb").write(with_field(good, 345, 155, b"../../.."))
open(os.path.join(out, "type-unknown.tar"), "wb").write(with_field(good, 156, 1, b"Z"))
open(os.path.join(out, "zeros-only.tar"), "wb").write(b"\0" * 1024)
open(os.path.join(out, "garbage.tar"), "wb").write(b"\xff" * 1024)
# a pax header whose length lies
pax = write("pax-good.tar", [member("p.txt", pax_headers={"comment": "c"})], tarfile.PAX_FORMAT)
i = pax.find(b"comment=")
j = pax.rfind(b" ", 0, i)
lied = pax[:j - 2] + b"99" + pax[j:]
open(os.path.join(out, "pax-bad-length.tar"), "wb").write(lied)
os.remove(os.path.join(out, "pax-good.tar"))
# a pax path with a NUL inside: a C string would end at "ok" (the records carry no checksum)
nulpax = write("pax-path-nul.tar", [member("ok-" + "Z" * 7 + "/../../" + E, pax_headers={"path": "ok-" + "Z" * 7 + "/../../" + E})], tarfile.PAX_FORMAT)
open(os.path.join(out, "pax-path-nul.tar"), "wb").write(nulpax.replace(b"path=ok-ZZZZZZZ", b"path=ok\0ZZZZZZZ", 1))
