// Memory operations: pointer arithmetic, loads and stores (masked lanes are never touched),
// and atomics, all bounds-checked against the caller's buffers. Programs run one at a time,
// so every read-modify-write is atomic.
#include "Interp.h"

#include "tk/Support/FloatFormats.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace tk::interp {

namespace {

int bytesOf(DType t) { return t == DType::I1 ? 1 : bitsOf(t) / 8; }

DType pointeeOf(Value ptr) {
  return dtypeOf(cast<PtrType>(tk::elementTypeOf(ptr.getType())).getPointee());
}

void readElement(Tile &t, size_t k, const uint8_t *p) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, bytesOf(t.dtype));
  switch (t.dtype) {
  case DType::I1: t.i[k] = bits != 0; break;
  case DType::F64: std::memcpy(&t.d[k], p, 8); break;
  case DType::F32: std::memcpy(&t.f[k], p, 4); break;
  case DType::F16: t.f[k] = fp::halfToFloat(uint16_t(bits)); break;
  case DType::BF16: t.f[k] = fp::bf16ToFloat(uint16_t(bits)); break;
  case DType::F8E4M3: t.f[k] = fp::f8e4m3ToFloat(uint8_t(bits)); break;
  case DType::F8E5M2: t.f[k] = fp::f8e5m2ToFloat(uint8_t(bits)); break;
  default: t.i[k] = wrapInt(int64_t(bits), bitsOf(t.dtype)); break;
  }
}

void writeElement(const Tile &t, size_t k, uint8_t *p) {
  uint64_t bits;
  switch (t.dtype) {
  case DType::I1: bits = t.i[k] != 0; break;
  case DType::F64: std::memcpy(&bits, &t.d[k], 8); break;
  case DType::F32: { uint32_t u; std::memcpy(&u, &t.f[k], 4); bits = u; break; }
  case DType::F16: bits = fp::floatToHalf(t.f[k]); break;
  case DType::BF16: bits = fp::floatToBf16(t.f[k]); break;
  case DType::F8E4M3: bits = fp::floatToF8e4m3(t.f[k]); break;
  case DType::F8E5M2: bits = fp::floatToF8e5m2(t.f[k]); break;
  default: bits = uint64_t(t.i[k]); break;
  }
  std::memcpy(p, &bits, bytesOf(t.dtype));
}

/// writeElement into memory the program reads back, counting a write that changed its bytes
/// (a loop that repeats with nothing changed can never end: Interpreter's while loops).
void writeMemory(Interpreter &in, const Tile &t, size_t k, uint8_t *p) {
  uint8_t before[8];
  size_t bytes = bytesOf(t.dtype);
  std::memcpy(before, p, bytes);
  writeElement(t, k, p);
  if (std::memcmp(before, p, bytes) != 0)
    in.noteMemoryChange();
}

bool maskAllows(const Tile *mask, size_t k) { return !mask || mask->i[mask->size() == 1 ? 0 : k] != 0; }

double valueAt(const Tile &t, size_t k) { return t.dtype == DType::F64 ? t.d[k] : isFloat(t.dtype) ? t.f[k] : double(t.i[k]); }


} // namespace

bool execMemory(Interpreter &in, Operation *op) {
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case([&](AddPtrOp a) {
        const Tile &ptr = in.get(a.getPtr()), &offset = in.get(a.getOffset());
        int64_t size = bytesOf(pointeeOf(a.getPtr()));
        Tile r = ptr;
        for (size_t k = 0; k < r.size(); ++k)
          r.i[k] = Interpreter::offsetAddress(ptr.i[k], offset.i[k], size);
        in.set(a.getResult(), std::move(r));
        return true;
      })
      .Case([&](LoadOp l) {
        const Tile &ptr = in.get(l.getPtr());
        const Tile *mask = l.getMask() ? &in.get(l.getMask()) : nullptr;
        const Tile *other = l.getOther() ? &in.get(l.getOther()) : nullptr;
        DType dtype = pointeeOf(l.getPtr());
        Tile r = Tile::make(dtype, ptr.shape);
        for (size_t k = 0; k < r.size(); ++k) {
          if (!maskAllows(mask, k)) {
            if (other) {
              if (!r.i.empty()) r.i[k] = other->i[k];
              else if (!r.f.empty()) r.f[k] = other->f[k];
              else r.d[k] = other->d[k];
            }
            continue;
          }
          readElement(r, k, in.resolve(op, ptr.i[k], bytesOf(dtype), k, "load"));
        }
        in.set(l.getResult(), std::move(r));
        return true;
      })
      .Case([&](PrefetchL2Op p) {
        // Only a hint on the GPU; here its range is checked as a load's would be.
        const Tile &ptr = in.get(p.getPtr());
        const Tile *mask = p.getMask() ? &in.get(p.getMask()) : nullptr;
        int64_t count = in.get(p.getCount()).i[0], size = bytesOf(pointeeOf(p.getPtr()));
        for (size_t k = 0; k < ptr.size() && count > 0; ++k)
          if (maskAllows(mask, k)) {
            in.resolve(op, ptr.i[k], int(size), k, "prefetch_l2");
            in.resolve(op, Interpreter::offsetAddress(ptr.i[k], count - 1, size), int(size), k, "prefetch_l2");
          }
        return true;
      })
      .Case([&](StoreOp s) {
        const Tile &ptr = in.get(s.getPtr()), &value = in.get(s.getValue());
        const Tile *mask = s.getMask() ? &in.get(s.getMask()) : nullptr;
        int bytes = bytesOf(value.dtype);
        for (size_t k = 0; k < ptr.size(); ++k)
          if (maskAllows(mask, k))
            writeMemory(in, value, k, in.resolve(op, ptr.i[k], bytes, k, "store"));
        return true;
      })
      .Case([&](AtomicRMWOp a) {
        const Tile &ptr = in.get(a.getPtr()), &value = in.get(a.getValue());
        const Tile *mask = a.getMask() ? &in.get(a.getMask()) : nullptr;
        Tile old = Tile::make(value.dtype, value.shape);
        int bytes = bytesOf(value.dtype), bits = bitsOf(value.dtype);
        Tile updated = Tile::make(value.dtype, {});
        for (size_t k = 0; k < ptr.size(); ++k) {
          if (!maskAllows(mask, k))
            continue;
          uint8_t *p = in.resolve(op, ptr.i[k], bytes, k, "atomic");
          readElement(old, k, p);
          if (isFloat(value.dtype)) {
            double x = valueAt(old, k), y = valueAt(value, k), r;
            switch (a.getKind()) {
            case AtomicKind::add: r = x + y; break;
            case AtomicKind::max: case AtomicKind::umax: r = std::fmax(x, y); break;
            case AtomicKind::min: case AtomicKind::umin: r = std::fmin(x, y); break;
            default: r = y; break;
            }
            writeRounded(updated, 0, r);
          } else {
            int64_t x = old.i[k], y = value.i[k], r;
            switch (a.getKind()) {
            case AtomicKind::add: r = int64_t(uint64_t(x) + uint64_t(y)); break;
            case AtomicKind::max: r = std::max(x, y); break;
            case AtomicKind::min: r = std::min(x, y); break;
            case AtomicKind::umax: r = asUnsigned(x, bits) >= asUnsigned(y, bits) ? x : y; break;
            case AtomicKind::umin: r = asUnsigned(x, bits) <= asUnsigned(y, bits) ? x : y; break;
            default: r = y; break;
            }
            updated.i[0] = wrapInt(r, bits);
          }
          writeMemory(in, updated, 0, p);
        }
        in.set(a.getResult(), std::move(old));
        return true;
      })
      .Case([&](AtomicCASOp a) {
        const Tile &ptr = in.get(a.getPtr()), &cmp = in.get(a.getCmp()), &value = in.get(a.getValue());
        Tile old = Tile::make(value.dtype, value.shape);
        int bytes = bytesOf(value.dtype);
        for (size_t k = 0; k < ptr.size(); ++k) {
          uint8_t *p = in.resolve(op, ptr.i[k], bytes, k, "atomic");
          readElement(old, k, p);
          std::vector<uint8_t> expected(bytes);
          writeElement(cmp, k, expected.data());
          if (std::memcmp(p, expected.data(), bytes) == 0)
            writeMemory(in, value, k, p);
        }
        in.set(a.getResult(), std::move(old));
        return true;
      })
      .Default([](Operation *) { return false; });
}

} // namespace tk::interp
