//===- TrellisModule.cpp - The trellis._trellis Python extension ----------===//
//
// pybind11 bindings of the C++ embedding API (include/trellis/API,
// docs/embedding.md): compile MLIR text, call a function with NumPy arrays.
// Inputs are handed to the API as views of the arrays' own memory (any
// strides; the API gathers them itself), results come back as NumPy arrays
// over the API's result buffers, without another copy. Every llvm::Error
// becomes a trellis.Error carrying its message and diagnostics.
//
//===----------------------------------------------------------------------===//

#include "trellis/API/Compiler.h"

#include "llvm/Support/Error.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

/// The C++ side of trellis.Error.
struct TrellisError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Returns the value of `expected`, or throws its error as a TrellisError.
template <typename T> T unwrap(llvm::Expected<T> expected) {
  if (!expected)
    throw TrellisError(llvm::toString(expected.takeError()));
  return std::move(*expected);
}

/// The NumPy dtype of `dtype`.
py::dtype toNumpy(trellis::DType dtype) {
  return py::dtype(std::string(trellis::runtime::getNumpyName(dtype)));
}

/// The Trellis dtype of a NumPy array, if it has one.
std::optional<trellis::DType> fromNumpy(const py::dtype &dtype) {
  for (trellis::DType candidate :
       {trellis::DType::F32, trellis::DType::F64, trellis::DType::I32,
        trellis::DType::I64, trellis::DType::U32})
    if (dtype.is(toNumpy(candidate)) || dtype.equal(toNumpy(candidate)))
      return candidate;
  return std::nullopt;
}

/// A compiled module and the Compiler (context) it must not outlive.
struct Program {
  std::unique_ptr<trellis::Compiler> compiler;
  std::optional<trellis::CompiledModule> compiled;
};

/// A callable function; it keeps its Program alive.
class PyFunction {
public:
  PyFunction(std::shared_ptr<Program> program, trellis::Function function)
      : program(std::move(program)), function(function) {}

  std::string name() const { return function.getName().str(); }

  py::list argTypes() const { return describe(getSignature().args); }
  py::list resultTypes() const { return describe(getSignature().results); }

  py::tuple call(py::args args) const {
    const auto &signature = getSignature();
    if (args.size() != signature.args.size())
      throw TrellisError("@" + name() + " takes " +
                         std::to_string(signature.args.size()) +
                         " arguments, got " + std::to_string(args.size()));
    // Keep the arrays (and so their memory) alive for the call.
    std::vector<py::array> arrays;
    std::vector<std::vector<int64_t>> shapes(args.size()), strides(args.size());
    std::vector<trellis::TensorView> views;
    for (size_t i = 0; i < args.size(); ++i) {
      const auto &expected = signature.args[i];
      py::handle arg = args[i];
      py::array array;
      if (py::isinstance<py::array>(arg))
        array = py::reinterpret_borrow<py::array>(arg);
      else // Python numbers and lists take the argument's dtype.
        array = py::module_::import("numpy").attr("asarray")(
            arg, toNumpy(expected.dtype));
      std::optional<trellis::DType> dtype = fromNumpy(array.dtype());
      if (!dtype)
        throw TrellisError("argument " + std::to_string(i) + " of @" + name() +
                           ": NumPy dtype " +
                           std::string(py::str(array.dtype())) +
                           " has no Trellis element type");
      size_t itemSize = array.itemsize();
      bool elementStrides = true;
      for (py::ssize_t d = 0; d < array.ndim(); ++d)
        elementStrides &= array.strides(d) % py::ssize_t(itemSize) == 0;
      if (!elementStrides) // Not expressible in elements: one dense copy.
        array = py::array::ensure(array, py::array::c_style);
      for (py::ssize_t d = 0; d < array.ndim(); ++d) {
        shapes[i].push_back(array.shape(d));
        strides[i].push_back(array.strides(d) / py::ssize_t(itemSize));
      }
      views.push_back({*dtype, shapes[i], strides[i], array.data()});
      arrays.push_back(std::move(array));
    }
    std::vector<trellis::Tensor> results;
    {
      py::gil_scoped_release release;
      auto called = function.call(views);
      if (!called) {
        std::string message = llvm::toString(called.takeError());
        py::gil_scoped_acquire acquire;
        throw TrellisError(message);
      }
      results = std::move(*called);
    }
    py::tuple tuple(results.size());
    for (size_t i = 0; i < results.size(); ++i) {
      // The array borrows the result's buffer; the capsule frees it.
      auto *owned = new trellis::Tensor(std::move(results[i]));
      py::capsule base(
          owned, [](void *p) { delete static_cast<trellis::Tensor *>(p); });
      std::vector<py::ssize_t> shape(owned->getShape().begin(),
                                     owned->getShape().end());
      tuple[i] =
          py::array(toNumpy(owned->getDType()), shape, owned->getData(), base);
    }
    return tuple;
  }

private:
  const trellis::runtime::EntrySignature &getSignature() const {
    return function.getSignature();
  }

  static py::list
  describe(llvm::ArrayRef<trellis::runtime::BoundaryValue> values) {
    py::list list;
    for (const auto &value : values)
      list.append(py::make_tuple(
          std::string(trellis::runtime::getNumpyName(value.dtype)),
          py::tuple(py::cast(
              std::vector<int64_t>(value.shape.begin(), value.shape.end())))));
    return list;
  }

  std::shared_ptr<Program> program;
  trellis::Function function;
};

/// A compiled module: its callable functions by name.
class PyModule {
public:
  explicit PyModule(std::shared_ptr<Program> program)
      : program(std::move(program)) {}

  PyFunction lookup(const std::string &name) const {
    return PyFunction(program, unwrap(program->compiled->lookup(name)));
  }

  std::vector<std::string> functionNames() const {
    return program->compiled->getFunctionNames();
  }

private:
  std::shared_ptr<Program> program;
};

PyModule compileText(const std::string &text, const std::string &bufferName,
                     unsigned optLevel, int64_t attentionChunk,
                     const std::string &cacheDir) {
  trellis::CompileOptions options;
  options.optLevel = optLevel;
  options.attentionChunk = attentionChunk;
  options.cacheDir = cacheDir;
  auto program = std::make_shared<Program>();
  std::string error;
  {
    py::gil_scoped_release release;
    program->compiler = std::make_unique<trellis::Compiler>(options);
    auto module = program->compiler->parseModule(text, bufferName);
    if (!module) {
      error = llvm::toString(module.takeError());
    } else {
      auto compiled = program->compiler->compile(*module);
      if (compiled)
        program->compiled.emplace(std::move(*compiled));
      else
        error = llvm::toString(compiled.takeError());
    }
  }
  if (!program->compiled)
    throw TrellisError(error);
  return PyModule(std::move(program));
}

/// Parses and verifies `text` without compiling it; returns it printed.
std::string verifyText(const std::string &text, const std::string &bufferName) {
  trellis::Compiler compiler;
  return unwrap(compiler.parseModule(text, bufferName)).print();
}

} // namespace

PYBIND11_MODULE(_trellis, m) {
  m.doc() = "Trellis' C++ embedding API (docs/python.md)";
  py::register_exception<TrellisError>(m, "Error", PyExc_Exception);

  py::class_<PyFunction>(m, "Function")
      .def_property_readonly("name", &PyFunction::name)
      .def_property_readonly("arg_types", &PyFunction::argTypes,
                             "(numpy dtype name, shape) per argument")
      .def_property_readonly("result_types", &PyFunction::resultTypes,
                             "(numpy dtype name, shape) per result")
      .def("__call__", &PyFunction::call,
           "Calls the function on NumPy arrays; returns a tuple of arrays");

  py::class_<PyModule>(m, "CompiledModule")
      .def("__getitem__", &PyModule::lookup)
      .def("lookup", &PyModule::lookup)
      .def_property_readonly("function_names", &PyModule::functionNames);

  m.def("compile_module", &compileText, py::arg("text"),
        py::arg("buffer_name") = "<string>", py::arg("opt_level") = 3,
        py::arg("attention_chunk") = 128, py::arg("cache_dir") = "",
        "Parses, lowers and JIT-compiles MLIR text");
  m.def("verify", &verifyText, py::arg("text"),
        py::arg("buffer_name") = "<string>",
        "Parses and verifies MLIR text; returns it printed");
}
