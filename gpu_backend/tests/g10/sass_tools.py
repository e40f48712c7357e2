# sm_90 cubin helpers for docs/findings.md G10 (no GPU needed): the .text section of a kernel, the control bits of
# each 128-bit instruction (stall, yield, write/read scoreboard, wait mask, reuse), and patching them.
#   python3 sass_tools.py ctrl LISTING          # LISTING = `nvdisasm -hex CUBIN`: one line per instruction
#   python3 sass_tools.py text-sha CUBIN KERNEL # sha256 of the kernel's .text section
# Control bits (Volta and later; bits of the high 64-bit word): 41-44 stall cycles, 45 yield, 46-48 write
# scoreboard (7 = none), 49-51 read scoreboard (7 = none), 52-57 wait mask, 58-61 operand reuse.
import hashlib
import re
import struct
import sys


def text_section(cubin: bytes, kernel: str):
    """(offset, size) of .text.KERNEL in an ELF64 cubin."""
    shoff, = struct.unpack_from('<Q', cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', cubin, 0x3A)
    def header(i):
        return struct.unpack_from('<IIQQQQIIQQ', cubin, shoff + i * shentsize)
    strtab = header(shstrndx)
    for i in range(shnum):
        h = header(i)
        start = strtab[4] + h[0]
        name = cubin[start:cubin.index(b'\0', start)].decode()
        if name == '.text.' + kernel:
            return h[4], h[5]
    raise ValueError('no .text.' + kernel + ' in the cubin')


def text_sha(cubin: bytes, kernel: str) -> str:
    off, size = text_section(cubin, kernel)
    return hashlib.sha256(cubin[off:off + size]).hexdigest()


def decode(hi: int) -> dict:
    c = hi >> 41
    return {'stall': c & 15, 'yield': c >> 4 & 1, 'wr': c >> 5 & 7, 'rd': c >> 8 & 7, 'wait': c >> 11 & 63,
            'reuse': c >> 17 & 15}


def encode(hi: int, **fields) -> int:
    layout = {'stall': (41, 4), 'yield': (45, 1), 'wr': (46, 3), 'rd': (49, 3), 'wait': (52, 6), 'reuse': (58, 4)}
    for name, value in fields.items():
        shift, width = layout[name]
        hi = (hi & ~(((1 << width) - 1) << shift)) | ((value & ((1 << width) - 1)) << shift)
    return hi


def patch(cubin: bytearray, kernel: str, address: int, expect=None, **fields):
    """Sets control fields of the instruction at ADDRESS (bytes from the kernel's start). `expect` = (lo, hi)
    words the instruction must have now (so a patch never lands on a different schedule); wait_or ORs a mask."""
    off, size = text_section(bytes(cubin), kernel)
    assert 0 <= address < size and address % 16 == 0
    lo, hi = struct.unpack_from('<QQ', cubin, off + address)
    if expect is not None and (lo, hi) != tuple(expect):
        raise ValueError(f'instruction at {address:#06x} is {lo:#018x} {hi:#018x}, not the expected one')
    if 'wait_or' in fields:
        fields['wait'] = decode(hi)['wait'] | fields.pop('wait_or')
    struct.pack_into('<QQ', cubin, off + address, lo, encode(hi, **fields))


def every_instruction(cubin: bytearray, kernel: str, **fields):
    off, size = text_section(bytes(cubin), kernel)
    for address in range(0, size, 16):
        lo, hi = struct.unpack_from('<QQ', cubin, off + address)
        struct.pack_into('<QQ', cubin, off + address, lo, encode(hi, **fields))


def instructions_in(cubin: bytearray, kernel: str, first: int, last: int, **fields):
    """Sets the control fields of instructions first..last (indices, inclusive)."""
    off, size = text_section(bytes(cubin), kernel)
    for index in range(max(first, 0), min(last, size // 16 - 1) + 1):
        lo, hi = struct.unpack_from('<QQ', cubin, off + 16 * index)
        struct.pack_into('<QQ', cubin, off + 16 * index, lo, encode(hi, **fields))


def control_listing(path: str):
    """`nvdisasm -hex` text -> lines 'ADDR S<stall> Y wr= rd= wait= INSTRUCTION'."""
    lines = open(path).read().splitlines()
    out = []
    for i, line in enumerate(lines):
        m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s*(.*?)\s*;\s*/\* (0x[0-9a-f]{16}) \*/', line)
        if not m:
            continue
        hi = int(re.search(r'/\* (0x[0-9a-f]{16}) \*/', lines[i + 1]).group(1), 16)
        d = decode(hi)
        wait = 'wait=' + ','.join(str(b) for b in range(6) if d['wait'] >> b & 1) if d['wait'] else ''
        out.append(f"{m.group(1)} S{d['stall']:02d} {'Y' if d['yield'] else ' '} "
                   f"wr={'-' if d['wr'] == 7 else d['wr']} rd={'-' if d['rd'] == 7 else d['rd']} {wait:12s} {m.group(2)}")
    return out


if __name__ == '__main__':
    if sys.argv[1] == 'ctrl':
        print('\n'.join(control_listing(sys.argv[2])))
    elif sys.argv[1] == 'text-sha':
        print(text_sha(open(sys.argv[2], 'rb').read(), sys.argv[3]))
    else:
        sys.exit('usage: sass_tools.py ctrl LISTING | text-sha CUBIN KERNEL')
