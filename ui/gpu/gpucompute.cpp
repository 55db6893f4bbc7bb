// SPDX-License-Identifier: MIT
#include "ui/gpu/gpucompute.h"

#include "core/errors.h"
#include "core/fixedturns.h"

#include <QFile>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glcorearb.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

namespace poslab::gpu {

namespace {

// The few OpenGL entry points the compute path needs, resolved through eglGetProcAddress.
struct Gl {
    PFNGLGETSTRINGPROC GetString;
    PFNGLGETINTEGERVPROC GetIntegerv;
    PFNGLGETINTEGERI_VPROC GetIntegeri_v;
    PFNGLGETERRORPROC GetError;
    PFNGLCREATESHADERPROC CreateShader;
    PFNGLSHADERSOURCEPROC ShaderSource;
    PFNGLCOMPILESHADERPROC CompileShader;
    PFNGLGETSHADERIVPROC GetShaderiv;
    PFNGLGETSHADERINFOLOGPROC GetShaderInfoLog;
    PFNGLDELETESHADERPROC DeleteShader;
    PFNGLCREATEPROGRAMPROC CreateProgram;
    PFNGLATTACHSHADERPROC AttachShader;
    PFNGLLINKPROGRAMPROC LinkProgram;
    PFNGLGETPROGRAMIVPROC GetProgramiv;
    PFNGLGETPROGRAMINFOLOGPROC GetProgramInfoLog;
    PFNGLDELETEPROGRAMPROC DeleteProgram;
    PFNGLUSEPROGRAMPROC UseProgram;
    PFNGLGETUNIFORMLOCATIONPROC GetUniformLocation;
    PFNGLUNIFORM1UIPROC Uniform1ui;
    PFNGLUNIFORM1IPROC Uniform1i;
    PFNGLUNIFORM1FPROC Uniform1f;
    PFNGLGENBUFFERSPROC GenBuffers;
    PFNGLDELETEBUFFERSPROC DeleteBuffers;
    PFNGLBINDBUFFERPROC BindBuffer;
    PFNGLBUFFERDATAPROC BufferData;
    PFNGLBINDBUFFERBASEPROC BindBufferBase;
    PFNGLGETBUFFERSUBDATAPROC GetBufferSubData;
    PFNGLDISPATCHCOMPUTEPROC DispatchCompute;
    PFNGLMEMORYBARRIERPROC MemoryBarrier;
    PFNGLFINISHPROC Finish;
    PFNGLGENQUERIESPROC GenQueries;
    PFNGLDELETEQUERIESPROC DeleteQueries;
    PFNGLBEGINQUERYPROC BeginQuery;
    PFNGLENDQUERYPROC EndQuery;
    PFNGLGETQUERYOBJECTUI64VPROC GetQueryObjectui64v;

    bool load(std::string* missing)
    {
        bool ok = true;
        auto get = [&](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(eglGetProcAddress(name));
            if (!fn) {
                ok = false;
                if (missing)
                    *missing = name;
            }
        };
        get(GetString, "glGetString");
        get(GetIntegerv, "glGetIntegerv");
        get(GetIntegeri_v, "glGetIntegeri_v");
        get(GetError, "glGetError");
        get(CreateShader, "glCreateShader");
        get(ShaderSource, "glShaderSource");
        get(CompileShader, "glCompileShader");
        get(GetShaderiv, "glGetShaderiv");
        get(GetShaderInfoLog, "glGetShaderInfoLog");
        get(DeleteShader, "glDeleteShader");
        get(CreateProgram, "glCreateProgram");
        get(AttachShader, "glAttachShader");
        get(LinkProgram, "glLinkProgram");
        get(GetProgramiv, "glGetProgramiv");
        get(GetProgramInfoLog, "glGetProgramInfoLog");
        get(DeleteProgram, "glDeleteProgram");
        get(UseProgram, "glUseProgram");
        get(GetUniformLocation, "glGetUniformLocation");
        get(Uniform1ui, "glUniform1ui");
        get(Uniform1i, "glUniform1i");
        get(Uniform1f, "glUniform1f");
        get(GenBuffers, "glGenBuffers");
        get(DeleteBuffers, "glDeleteBuffers");
        get(BindBuffer, "glBindBuffer");
        get(BufferData, "glBufferData");
        get(BindBufferBase, "glBindBufferBase");
        get(GetBufferSubData, "glGetBufferSubData");
        get(DispatchCompute, "glDispatchCompute");
        get(MemoryBarrier, "glMemoryBarrier");
        get(Finish, "glFinish");
        get(GenQueries, "glGenQueries");
        get(DeleteQueries, "glDeleteQueries");
        get(BeginQuery, "glBeginQuery");
        get(EndQuery, "glEndQuery");
        get(GetQueryObjectui64v, "glGetQueryObjectui64v");
        return ok;
    }
};

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

} // namespace

namespace {
// The surfaceless EGL display is one per process: every GpuCompute gets the same handle, and eglTerminate
// by one of them would destroy the contexts of all the others (an export's or benchmark's engine next to
// the window's). So the display is initialised once and terminated when its last user goes.
std::mutex displayUsersMutex;
int displayUsers = 0;

// Holds the lock and the context for one call.
template <typename Impl> class CurrentContext {
public:
    explicit CurrentContext(Impl& impl)
        : m_impl(impl)
        , m_lock(impl.mutex)
    {
        if (!m_impl.makeCurrent())
            throw core::RefusedError("the OpenGL context could not be made current");
    }
    ~CurrentContext() { m_impl.release(); }

private:
    Impl& m_impl;
    std::lock_guard<std::mutex> m_lock;
};
} // namespace

struct GpuCompute::Impl {
    EGLDisplay display = EGL_NO_DISPLAY;
    EGLContext context = EGL_NO_CONTEXT;
    EGLSurface surface = EGL_NO_SURFACE; ///< a 1 x 1 pbuffer where the driver lacks surfaceless contexts
    Gl gl{};
    GLuint trigProgram = 0;
    GLuint rotateProgram = 0;
    GLuint scoresProgram = 0;
    GLuint query = 0;
    GLint maxGroupsY = 65535;
    GLint64 maxBlockBytes = 128 << 20;

    bool countsAsDisplayUser = false;

    ~Impl()
    {
        if (context != EGL_NO_CONTEXT && makeCurrent()) {
            for (GLuint p : {trigProgram, rotateProgram, scoresProgram})
                if (p)
                    gl.DeleteProgram(p);
            if (query)
                gl.DeleteQueries(1, &query);
        }
        if (display != EGL_NO_DISPLAY) {
            eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
            if (context != EGL_NO_CONTEXT)
                eglDestroyContext(display, context);
            if (surface != EGL_NO_SURFACE)
                eglDestroySurface(display, surface);
            std::lock_guard users(displayUsersMutex);
            if (countsAsDisplayUser && --displayUsers == 0)
                eglTerminate(display);
        }
    }

    bool makeCurrent() { return eglMakeCurrent(display, surface, surface, context) == EGL_TRUE; }
    /// What create() does after one display: try the next, or stop (a context is current, or desktop OpenGL
    /// cannot be bound at all).
    enum class Attempt { Next, Stop };
    /// Initialises @p candidate and makes an OpenGL 4.3 core context current on it (without a window); on a
    /// problem, @p lastProblem says which.
    Attempt tryDisplay(EGLDisplay candidate, std::string& lastProblem);
    void release() { eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT); }

    // One call at a time, from any thread: the context is made current for the call and released after it.
    std::mutex mutex;

    GLuint compile(const char* resource, std::string* why)
    {
        QFile f(QString::fromLatin1(resource));
        if (!f.open(QIODevice::ReadOnly)) {
            *why = std::string("shader resource ") + resource + " is missing";
            return 0;
        }
        const QByteArray source = f.readAll();
        const GLchar* text = source.constData();
        const GLint length = GLint(source.size());
        const GLuint shader = gl.CreateShader(GL_COMPUTE_SHADER);
        gl.ShaderSource(shader, 1, &text, &length);
        gl.CompileShader(shader);
        GLint ok = 0;
        gl.GetShaderiv(shader, GL_COMPILE_STATUS, &ok);
        if (!ok) {
            char log[2048] = {};
            gl.GetShaderInfoLog(shader, sizeof log, nullptr, log);
            gl.DeleteShader(shader);
            *why = std::string("compiling ") + resource + " failed: " + log;
            return 0;
        }
        const GLuint program = gl.CreateProgram();
        gl.AttachShader(program, shader);
        gl.LinkProgram(program);
        gl.DeleteShader(shader);
        gl.GetProgramiv(program, GL_LINK_STATUS, &ok);
        if (!ok) {
            char log[2048] = {};
            gl.GetProgramInfoLog(program, sizeof log, nullptr, log);
            gl.DeleteProgram(program);
            *why = std::string("linking ") + resource + " failed: " + log;
            return 0;
        }
        return program;
    }

    GLint loc(GLuint program, const char* name) const { return gl.GetUniformLocation(program, name); }

    GLuint buffer(GLenum usage, const void* data, std::size_t bytes)
    {
        GLuint b = 0;
        gl.GenBuffers(1, &b);
        gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, b);
        gl.BufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(std::max<std::size_t>(bytes, 4)), data, usage);
        return b;
    }

    std::vector<GLuint> turns(std::span<const double> freq)
    {
        std::vector<GLuint> t(freq.size() * 2);
        for (std::size_t i = 0; i < freq.size(); ++i) {
            const std::uint64_t v = core::fixedTurns(freq[i]);
            t[2 * i] = GLuint(v);
            t[2 * i + 1] = GLuint(v >> 32);
        }
        return t;
    }

    // Rows per dispatch: the work-group count limit and the largest shader storage block.
    std::size_t rowsPerChunk(std::size_t floatsPerRow, unsigned groupRows) const
    {
        const std::size_t byGroups = std::size_t(maxGroupsY) * groupRows;
        const std::size_t byBytes
            = std::max<std::size_t>(1, std::size_t(maxBlockBytes) / (floatsPerRow * sizeof(float)));
        return std::max<std::size_t>(1, std::min(byGroups, byBytes));
    }

    // Dispatches @p prog over @p rows in chunks of @p chunk rows (16-row work groups, @p groupsX groups
    // across) and reads each chunk's @p cols floats per row from @p buffer into @p out. Returns shader ms.
    double dispatchRows(GLuint prog, std::size_t rows, std::size_t chunk, GLuint groupsX, GLuint buffer,
                        std::size_t cols, float* out)
    {
        double shaderMs = 0.0;
        for (std::size_t first = 0; first < rows; first += chunk) {
            const std::size_t n = std::min(chunk, rows - first);
            gl.Uniform1ui(loc(prog, "uRows"), GLuint(n));
            gl.Uniform1ui(loc(prog, "uRowOffset"), GLuint(first));
            beginTimer();
            gl.DispatchCompute(groupsX, GLuint((n + 15) / 16), 1);
            shaderMs += endTimer();
            gl.MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
            gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, buffer);
            gl.GetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(n * cols * sizeof(float)), out + first * cols);
        }
        return shaderMs;
    }

    // Shader time: the GL timer query where the driver implements it, else the wall clock of the dispatch
    // up to glFinish (llvmpipe answers the query with ~0 ns; the wall clock then still tells the truth).
    Clock::time_point timerStart;
    void beginTimer()
    {
        gl.Finish();
        timerStart = Clock::now();
        gl.BeginQuery(GL_TIME_ELAPSED, query);
    }
    double endTimer()
    {
        gl.EndQuery(GL_TIME_ELAPSED);
        gl.Finish();
        const double wallMs = msSince(timerStart);
        GLuint64 ns = 0;
        gl.GetQueryObjectui64v(query, GL_QUERY_RESULT, &ns);
        const double queryMs = double(ns) * 1e-6;
        return queryMs > 0.01 * wallMs ? queryMs : wallMs;
    }
};

GpuCompute::GpuCompute(std::unique_ptr<Impl> impl)
    : d(std::move(impl))
{ }

GpuCompute::~GpuCompute() = default;

namespace {

/// Displays to try, in order: Mesa's surfaceless platform (llvmpipe and Mesa's GPU drivers, no display server),
/// each GPU device (NVIDIA's EGL: EGL_EXT_platform_device), then the default display.
std::vector<EGLDisplay> candidateDisplays()
{
    const char* clientExtensions = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    auto hasClient = [&](const char* e) { return clientExtensions && std::strstr(clientExtensions, e); };
    auto getPlatformDisplay
        = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    std::vector<EGLDisplay> candidates;
    if (getPlatformDisplay && hasClient("EGL_MESA_platform_surfaceless"))
        candidates.push_back(getPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr));
    if (getPlatformDisplay && hasClient("EGL_EXT_platform_device")) {
        auto queryDevices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
        EGLDeviceEXT devices[8];
        EGLint count = 0;
        if (queryDevices && queryDevices(8, devices, &count))
            for (EGLint i = 0; i < count; ++i)
                candidates.push_back(getPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr));
    }
    candidates.push_back(eglGetDisplay(EGL_DEFAULT_DISPLAY));
    return candidates;
}

} // namespace

GpuCompute::Impl::Attempt GpuCompute::Impl::tryDisplay(EGLDisplay candidate, std::string& lastProblem)
{
    static const EGLint attributes[]
        = {EGL_CONTEXT_MAJOR_VERSION,           4,       EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
           EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    if (candidate == EGL_NO_DISPLAY)
        return Attempt::Next;
    EGLint major = 0, minor = 0;
    {
        std::lock_guard users(displayUsersMutex);
        if (!eglInitialize(candidate, &major, &minor))
            return Attempt::Next;
        ++displayUsers;
    }
    display = candidate;
    countsAsDisplayUser = true;
    if (!eglBindAPI(EGL_OPENGL_API)) {
        lastProblem = "EGL cannot bind desktop OpenGL";
        return Attempt::Stop;
    }
    // A context without a config (EGL_KHR_no_config_context) where the driver allows it; otherwise one
    // from a pbuffer-capable OpenGL config.
    EGLConfig config = EGL_NO_CONFIG_KHR;
    context = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attributes);
    if (context == EGL_NO_CONTEXT) {
        const EGLint want[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
        EGLint found = 0;
        if (eglChooseConfig(display, want, &config, 1, &found) && found == 1)
            context = eglCreateContext(display, config, EGL_NO_CONTEXT, attributes);
    }
    if (context == EGL_NO_CONTEXT) {
        lastProblem = "no OpenGL 4.3 core context (compute shaders need 4.3)";
        return Attempt::Next;
    }
    if (!makeCurrent() && config != EGL_NO_CONFIG_KHR) {
        // No surfaceless contexts (EGL_KHR_surfaceless_context): a 1 x 1 pbuffer instead.
        const EGLint size[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
        surface = eglCreatePbufferSurface(display, config, size);
    }
    if (!makeCurrent()) {
        lastProblem = "the OpenGL context cannot be made current without a window";
        eglDestroyContext(display, context);
        context = EGL_NO_CONTEXT;
        return Attempt::Next;
    }
    return Attempt::Stop;
}

std::unique_ptr<GpuCompute> GpuCompute::create(std::string* whyNot)
{
    std::string why;
    auto fail = [&](std::string reason) -> std::unique_ptr<GpuCompute> {
        if (whyNot)
            *whyNot = std::move(reason);
        return nullptr;
    };
    auto impl = std::make_unique<Impl>();
    std::string lastProblem = "no EGL display could be initialised";
    for (EGLDisplay display : candidateDisplays())
        if (impl->tryDisplay(display, lastProblem) == Impl::Attempt::Stop)
            break;
    if (impl->context == EGL_NO_CONTEXT)
        return fail(lastProblem);
    std::string missing;
    if (!impl->gl.load(&missing))
        return fail("OpenGL entry point " + missing + " is missing");
    impl->gl.GetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 1, &impl->maxGroupsY);
    GLint blockBytes = 0;
    impl->gl.GetIntegerv(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &blockBytes);
    if (blockBytes > 0)
        impl->maxBlockBytes = std::min<GLint64>(blockBytes, GLint64(1) << 30);
    if (!(impl->trigProgram = impl->compile(":/shaders/trig_table.comp", &why))
        || !(impl->rotateProgram = impl->compile(":/shaders/rope_rotate.comp", &why))
        || !(impl->scoresProgram = impl->compile(":/shaders/attention_scores.comp", &why)))
        return fail(why);
    impl->gl.GenQueries(1, &impl->query);
    impl->release();
    return std::unique_ptr<GpuCompute>(new GpuCompute(std::move(impl)));
}

std::string GpuCompute::renderer() const
{
    CurrentContext<Impl> current(*d);
    const auto* r = reinterpret_cast<const char*>(d->gl.GetString(GL_RENDERER));
    const auto* v = reinterpret_cast<const char*>(d->gl.GetString(GL_VERSION));
    return std::string(r ? r : "?") + ", OpenGL " + (v ? v : "?");
}

core::MatrixF GpuCompute::trigTable(std::span<const double> freq, const core::PositionList& positions,
                                    const TableLayout& layout, GpuTiming* timing)
{
    const auto t0 = Clock::now();
    if (positions.maxValue() > core::Position(std::numeric_limits<std::uint32_t>::max()))
        throw core::InputError("the GPU path takes positions below 2^32");
    CurrentContext<Impl> current(*d);
    auto& gl = d->gl;
    const std::size_t rows = positions.size();
    const std::size_t cols = std::size_t(layout.cols);
    core::MatrixF out = core::MatrixF::Zero(Eigen::Index(rows), Eigen::Index(cols));
    const std::vector<GLuint> turns = d->turns(freq);
    std::vector<GLuint> list;
    if (!positions.isRange()) {
        list.resize(rows);
        for (std::size_t r = 0; r < rows; ++r)
            list[r] = GLuint(positions[r]);
    }
    const GLuint turnBuffer = d->buffer(GL_STATIC_DRAW, turns.data(), turns.size() * sizeof(GLuint));
    const GLuint positionBuffer = d->buffer(GL_STATIC_DRAW, list.data(), list.size() * sizeof(GLuint));
    const std::size_t chunk = d->rowsPerChunk(cols, 16);
    const GLuint tableBuffer = d->buffer(GL_STREAM_READ, nullptr, std::min(chunk, rows) * cols * sizeof(float));
    const GLuint prog = d->trigProgram;
    gl.UseProgram(prog);
    gl.Uniform1ui(d->loc(prog, "uPairs"), GLuint(freq.size()));
    gl.Uniform1i(d->loc(prog, "uIsRange"), positions.isRange() ? 1 : 0);
    gl.Uniform1ui(d->loc(prog, "uStart"), positions.isRange() ? GLuint(positions.start()) : 0u);
    gl.Uniform1ui(d->loc(prog, "uStep"), positions.isRange() ? GLuint(positions.step()) : 0u);
    gl.Uniform1ui(d->loc(prog, "uRowStride"), GLuint(cols));
    gl.Uniform1ui(d->loc(prog, "uSinOffset"), GLuint(layout.sinOffset));
    gl.Uniform1ui(d->loc(prog, "uCosOffset"), GLuint(layout.cosOffset));
    gl.Uniform1ui(d->loc(prog, "uPairStride"), GLuint(layout.pairStride));
    gl.Uniform1i(d->loc(prog, "uWriteSin"), layout.writeSin ? 1 : 0);
    gl.Uniform1i(d->loc(prog, "uWriteCos"), layout.writeCos ? 1 : 0);
    gl.Uniform1f(d->loc(prog, "uScale"), layout.scale);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, turnBuffer);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, positionBuffer);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, tableBuffer);
    const double shaderMs
        = d->dispatchRows(prog, rows, chunk, GLuint((freq.size() + 15) / 16), tableBuffer, cols, out.data());
    const GLuint buffers[] = {turnBuffer, positionBuffer, tableBuffer};
    gl.DeleteBuffers(3, buffers);
    if (timing) {
        timing->shaderMs = shaderMs;
        timing->totalMs = msSince(t0);
    }
    return out;
}

void GpuCompute::rotate(const core::RotarySpec& spec, core::MatrixF& rows, core::Position start, core::Position step,
                        GpuTiming* timing)
{
    const auto t0 = Clock::now();
    if (!spec.xposZeta.empty())
        throw core::InputError("the GPU rotation does not apply xPos scaling");
    if (rows.cols() != spec.headDim)
        throw core::InputError("GPU rotate: rows have " + std::to_string(rows.cols()) + " columns, the spec "
                               + std::to_string(spec.headDim));
    CurrentContext<Impl> current(*d);
    auto& gl = d->gl;
    const std::vector<GLuint> turns = d->turns(spec.invFreq);
    const GLuint turnBuffer = d->buffer(GL_STATIC_DRAW, turns.data(), turns.size() * sizeof(GLuint));
    const GLuint rowBuffer = d->buffer(GL_DYNAMIC_COPY, rows.data(), std::size_t(rows.size()) * sizeof(float));
    const GLuint prog = d->rotateProgram;
    gl.UseProgram(prog);
    gl.Uniform1ui(d->loc(prog, "uRows"), GLuint(rows.rows()));
    gl.Uniform1ui(d->loc(prog, "uDim"), GLuint(spec.headDim));
    gl.Uniform1ui(d->loc(prog, "uRotaryDim"), GLuint(spec.rotaryDim));
    gl.Uniform1i(d->loc(prog, "uInterleaved"), spec.layout == core::PairLayout::Interleaved ? 1 : 0);
    gl.Uniform1ui(d->loc(prog, "uStart"), GLuint(start));
    gl.Uniform1ui(d->loc(prog, "uStep"), GLuint(step));
    gl.Uniform1f(d->loc(prog, "uScale"), float(spec.attentionFactor));
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, turnBuffer);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, rowBuffer);
    const std::size_t work = std::size_t(rows.rows()) * std::size_t(spec.rotaryDim / 2);
    d->beginTimer();
    gl.DispatchCompute(GLuint((work + 63) / 64), 1, 1);
    const double shaderMs = d->endTimer();
    gl.MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, rowBuffer);
    gl.GetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(std::size_t(rows.size()) * sizeof(float)), rows.data());
    const GLuint buffers[] = {turnBuffer, rowBuffer};
    gl.DeleteBuffers(2, buffers);
    if (timing) {
        timing->shaderMs = shaderMs;
        timing->totalMs = msSince(t0);
    }
}

core::MatrixF GpuCompute::scores(const core::MatrixF& q, const core::MatrixF& k, float scale, bool causal,
                                 core::Position queryStart, core::Position queryStep, core::Position keyStart,
                                 core::Position keyStep, GpuTiming* timing)
{
    const auto t0 = Clock::now();
    if (q.cols() != k.cols())
        throw core::InputError("GPU scores: queries have " + std::to_string(q.cols()) + " dimensions, keys "
                               + std::to_string(k.cols()));
    CurrentContext<Impl> current(*d);
    auto& gl = d->gl;
    const std::size_t rows = std::size_t(q.rows());
    const std::size_t keys = std::size_t(k.rows());
    core::MatrixF out(q.rows(), k.rows());
    const GLuint qBuffer = d->buffer(GL_STATIC_DRAW, q.data(), std::size_t(q.size()) * sizeof(float));
    const GLuint kBuffer = d->buffer(GL_STATIC_DRAW, k.data(), std::size_t(k.size()) * sizeof(float));
    const std::size_t chunk = d->rowsPerChunk(keys, 16);
    const GLuint sBuffer = d->buffer(GL_STREAM_READ, nullptr, std::min(chunk, rows) * keys * sizeof(float));
    const GLuint prog = d->scoresProgram;
    gl.UseProgram(prog);
    gl.Uniform1ui(d->loc(prog, "uKeys"), GLuint(keys));
    gl.Uniform1ui(d->loc(prog, "uDim"), GLuint(q.cols()));
    gl.Uniform1f(d->loc(prog, "uScale"), scale);
    gl.Uniform1i(d->loc(prog, "uCausal"), causal ? 1 : 0);
    gl.Uniform1ui(d->loc(prog, "uQueryStart"), GLuint(queryStart));
    gl.Uniform1ui(d->loc(prog, "uQueryStep"), GLuint(queryStep));
    gl.Uniform1ui(d->loc(prog, "uKeyStart"), GLuint(keyStart));
    gl.Uniform1ui(d->loc(prog, "uKeyStep"), GLuint(keyStep));
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, qBuffer);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, kBuffer);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, sBuffer);
    const double shaderMs = d->dispatchRows(prog, rows, chunk, GLuint((keys + 15) / 16), sBuffer, keys, out.data());
    const GLuint buffers[] = {qBuffer, kBuffer, sBuffer};
    gl.DeleteBuffers(3, buffers);
    if (timing) {
        timing->shaderMs = shaderMs;
        timing->totalMs = msSince(t0);
    }
    return out;
}

} // namespace poslab::gpu
